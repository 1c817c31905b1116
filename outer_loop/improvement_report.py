"""improve.py's report: one self-contained page that shows the outer loop climb.

`write_improvement_report(out, record, running)` writes `OUT/report.html`: the training pass
rate per iteration as a small chart drawn in the page (an inline SVG: no script, no fetch),
beside the held-out rates of the first and the final configuration; then each iteration's
configuration changes, each with its rationale and links to the attempts that are its evidence;
then every attempt as evaluate.py's report shows it, with each changed file before and after.
It is rewritten after every attempt and reloads itself while the run goes on.

What this file deliberately is not: a second renderer of attempts (report_attempt.py draws
them) or a reader of settings beyond what a person needs to see which change came when.
"""
import json
from pathlib import Path

from evaluation.folder import SLOT
from evaluation.html_parts import anchor, e, render_page
from evaluation.report_attempt import render_attempt, verdict_of
from workspace.files import write_atomic

WIDTH, HEIGHT, PAD = 420, 180, 30


def write_improvement_report(out, record, running=False):
    """Write OUT/report.html from the improvement record and the attempts on disk."""
    out = Path(out)
    body = (_header(record, running) + _chart(record) + _changes(record)
            + "".join(_iteration(out, entry) for entry in record["iterations"]) + _holdout(out, record))
    write_atomic(out / "report.html", render_page("coding-loop improvement", body, running))


def _header(record, running):
    state = "running" if running else f"stopped: {record.get('stopped')}"
    final = record.get("final") or (record["iterations"][-1]["settings"] if record["iterations"] else record["start"])
    return (f"<h1>coding-loop improvement</h1><p><b>{e(state)}</b> · improver <b>{e(record.get('improver'))}</b>"
            f" · {len(record['iterations'])} iteration(s)</p>"
            f"<table><tr><th>setting</th><th>start</th><th>now</th></tr>{_settings_rows(record['start'], final)}</table>")


def _settings_rows(start, now):
    rows = []
    for field in start:
        was, is_ = start[field], now.get(field)
        shown = [_short(value) for value in (was, is_)]
        mark = ' class="flag"' if was != is_ else ""
        rows.append(f"<tr><th>{e(field)}</th><td>{e(shown[0])}</td><td{mark}>{e(shown[1])}</td></tr>")
    return "".join(rows)


def _short(value):
    text = " ".join(value) if isinstance(value, list) else str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _chart(record):
    """Training pass@1 per iteration, and the held-out rates at the start and the end."""
    rates = [entry["train"]["pass@1"] or 0 for entry in record["iterations"] if entry.get("train")]
    if not rates:
        return ""
    step = (WIDTH - 2 * PAD) / max(1, len(rates) - 1)
    points = [(PAD + i * step, HEIGHT - PAD - rate * (HEIGHT - 2 * PAD)) for i, rate in enumerate(rates)]
    marks = "".join(f'<circle cx="{x:.0f}" cy="{y:.0f}" r="4" fill="#1565c0"/>'
                    f'<text x="{x:.0f}" y="{y - 8:.0f}" font-size="11" text-anchor="middle">{rate:.2f}</text>'
                    f'<text x="{x:.0f}" y="{HEIGHT - 10}" font-size="11" text-anchor="middle">{i + 1}</text>'
                    for i, ((x, y), rate) in enumerate(zip(points, rates)))
    line = " ".join(f"{x:.0f},{y:.0f}" for x, y in points)
    axis = (f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="#999"/>'
            f'<text x="4" y="{PAD + 4}" font-size="11">1.0</text><text x="4" y="{HEIGHT - PAD + 4}" font-size="11">0</text>')
    svg = (f'<svg role="img" aria-label="training pass@1 per iteration" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}">{axis}<polyline points="{line}" fill="none" stroke="#1565c0" '
           f'stroke-width="2"/>{marks}</svg>')
    return f"<h2>Training pass@1 per iteration</h2><div class=\"facts\">{svg}{_holdout_table(record)}</div>\n"


def _holdout_table(record):
    holdout = record.get("holdout")
    if not holdout:
        return "<p>No held-out tasks.</p>"
    first, last = record["iterations"][0]["train"], record["iterations"][-1]["train"]
    rows = [("training", first, last), ("held out: " + ", ".join(holdout["tasks"]), holdout["start"], holdout["final"])]
    cells = "".join(f"<tr><th>{e(name)}</th><td>{_rate(a)}</td><td>{_rate(b)}</td></tr>" for name, a, b in rows)
    return f"<table><tr><th>pass@1</th><th>first configuration</th><th>final</th></tr>{cells}</table>"


def _rate(rates):
    if rates is None:
        return "(being evaluated)"  # the iteration's decision is recorded, its evaluation not yet
    value = rates.get("pass@1")
    return e(f"{value:.2f} ({rates.get('repaired')}/{rates.get('attempts')})" if value is not None else "n/a")


def _changes(record):
    """Each iteration's changes: field, from → to, the rationale, links to the evidence."""
    rows = []
    for entry in record["iterations"]:
        for change in entry["changes"]:
            links = " ".join(f'<a href="#{_anchor(entry["n"] - 1, attempt_id)}">{e(attempt_id)}</a>'
                             for attempt_id in change.get("evidence", []))
            rows.append(f"<tr><td>{entry['n']}</td><td><code>{e(change['field'])}</code></td>"
                        f"<td>{e(_short(change['from']))} → {e(_short(change['to']))}</td>"
                        f"<td>{e(change.get('rationale'))}<br><small>evidence: {links or 'none'}</small></td></tr>")
        answer = entry.get("prompt_answer")
        if answer and not answer.get("accepted"):
            rows.append(f"<tr><td>{entry['n']}</td><td><code>system</code></td><td>kept</td>"
                        f"<td>the model's prompt was refused: {e(answer.get('why'))}</td></tr>")
    if not rows:
        return "<h2>Changes</h2><p>None yet: the first iteration runs the starting configuration.</p>\n"
    return ("<h2>Changes</h2><table><tr><th>iteration</th><th>setting</th><th>change</th><th>why</th></tr>"
            + "".join(rows) + "</table>\n")


def _iteration(out, entry):
    n, folder = entry["n"], entry["folder"]
    attempts = _attempts(out / folder)
    cells = "".join(f'<a class="cell" data-verdict="{e(verdict_of(a), False)}" href="#{_anchor(n, a["attempt_id"])}">'
                    f'{e(a["attempt_id"])}</a>' for a in attempts)
    sections = "".join(render_attempt(a, where=f"{folder}/attempts/{a['attempt_id']}.json",
                                      section_id=_anchor(n, a["attempt_id"]), files=True) for a in attempts)
    return (f'<h2 id="iteration-{n}">Iteration {n}: training pass@1 {_rate(entry.get("train"))}</h2>'
            f'<p><a href="{anchor(folder)}/report.html">its evaluation report</a> · {cells}</p>{sections}\n')


def _holdout(out, record):
    if not record.get("holdout"):
        return ""
    parts = []
    for name in ("start", "final"):
        attempts = _attempts(out / f"holdout-{name}")
        parts.append(f"<h2>Held-out tasks, {name} configuration: pass@1 {_rate(record['holdout'][name])}</h2>"
                     + "".join(render_attempt(a, where=f"holdout-{name}/attempts/{a['attempt_id']}.json",
                                              section_id=anchor(f"holdout-{name}-{a['attempt_id']}"), files=True)
                               for a in attempts))
    return "".join(parts)


def _anchor(n, attempt_id):
    """The fragment of an attempt of iteration n: the same ids come back in every iteration."""
    return anchor(f"it{n}-{attempt_id}")


def _attempts(folder):
    """The attempt files of one evaluation folder, in slot order; an unreadable one is left out
    (the evaluation's own report and its resume say what is wrong with it)."""
    found = []
    for path in sorted((folder / "attempts").glob("*.json")) if (folder / "attempts").is_dir() else ():
        if SLOT.fullmatch(path.name):
            try:
                found.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue
    return found
