"""The evaluation report: one self-contained HTML page a person opens from disk.

evaluate.py calls `write_report(folder, summary, attempts)` after grading. The page shows
the summary, a grid of tasks × attempts coloured by verdict, and one section per attempt
(verdict, grades, the model's claim, every tool call, the transcript and the diff).

Everything a model, a server or a recording controls is untrusted here, as on a terminal:
it passes `_e` (control characters neutralised by printer.clean, then html.escape) before it
reaches the page. The page has inline CSS only, and a Content-Security-Policy that forbids
scripts and every network fetch, so even a missed escape could neither run nor phone home.

What this file deliberately is not: a dashboard, a template engine or a web app (no scripts).
"""
import html
import json
from pathlib import Path
from urllib.parse import quote

from runs.printer import clean, result_line
from workspace.files import write_atomic

VERDICT_COLOURS = {"repaired": "#2e7d32", "not repaired": "#c62828",
                   "tests were modified": "#6a1b9a", "infra failure": "#9e9e9e"}
CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1100px;
margin:1.5em auto;padding:0 1em;color:#222;background:#fff}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .6em;text-align:left}
.cell,.badge{display:inline-block;min-width:2em;margin:1px;padding:.25em .4em;text-align:center;
color:#fff;text-decoration:none;border-radius:3px;background:#555}
section{border-top:2px solid #ccc;margin-top:2em}
.facts{display:flex;gap:2em;align-items:flex-start}.ok{color:#2e7d32}.no{color:#c62828}
.say{white-space:pre-wrap}.tool{margin:.4em 0 .4em 1em}.tool p,.tool pre{margin:.2em 0}
.tag{font-size:12px;background:#eee;padding:0 .3em}
.nudge{color:#8a5a00}.error{color:#c62828}.contradicted{color:#fff;background:#c62828;padding:0 .3em}
.add{color:#1b5e20;background:#e8f5e9}.del{color:#b71c1c;background:#ffebee}.hunk{color:#6a1b9a}
""" + "".join(f'[data-verdict="{v}"]{{background:{c}}}' for v, c in VERDICT_COLOURS.items())
# Inline styles only; no scripts, images, fonts or fetches of any kind.
CSP = "default-src 'none'; style-src 'unsafe-inline'"


def _e(value, lines=True):
    """`value` as inert HTML text: control characters and lone surrogates shown as escapes."""
    return html.escape(clean(str(value), keep_newlines=lines))


def _anchor(attempt_id):
    """A fragment id for an attempt: percent-encoded, so it is unique, ASCII and inert."""
    return quote(str(attempt_id), safe="", errors="surrogatepass")


def _verdict(attempt):
    """The attempt's verdict, or "infra failure" when the server or the harness lost it."""
    if "infra_failure" in attempt:
        return "infra failure"
    return str(attempt.get("grades", {}).get("verdict") or attempt.get("verdict") or "unknown")


def _json(value, indent=1):
    """Tool arguments for a person: JSON, or their repr if JSON cannot hold them."""
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, default=repr)
    except (ValueError, RecursionError):  # a cycle or absurd nesting: still show something
        return repr(value)


def _ratio(value, spec=".2f"):
    """A number as text (not yet escaped); anything else as it is."""
    return format(value, spec) if isinstance(value, (int, float)) else str(value)


def render_report(summary, attempts):
    """The whole page as a string."""
    body = _header(summary) + _grid(summary, attempts) + "".join(_section(a) for a in attempts)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width">'
            f"<title>coding-loop evaluation: {_e(summary.get('model', {}).get('name', ''), False)}</title>"
            f"<style>{CSS}</style></head><body>\n{body}</body></html>\n")


def write_report(folder, summary, attempts):
    """Write `folder/report.html` atomically (temp file, then rename; 0644 like every file the
    project writes); return its path."""
    path = Path(folder) / "report.html"
    write_atomic(path, render_report(summary, attempts))
    return path


def _header(summary):
    """The run's facts and a histogram of stop reasons, side by side."""
    model, overall = summary.get("model", {}), summary.get("overall", {})
    facts = [("model", f"{model.get('name')} ({model.get('digest') or 'no digest'})"),
             ("commit", f"{summary.get('commit')}{' (dirty)' if summary.get('dirty') else ''}"),
             ("pass@1", f"{_ratio(overall.get('pass@1'))} ({overall.get('repaired')} of "
                        f"{overall.get('attempts')} attempts repaired)"),
             ("k", summary.get("k")), ("seconds per attempt", _ratio(summary.get("seconds_per_attempt"), ".1f")),
             ("infra failures", summary.get("infra_failures")),
             ("well-formed turns", _ratio(summary.get("well_formed_turns"), ".0%"))]
    rows = "".join(f"<tr><th>{name}</th><td>{_e(value)}</td></tr>" for name, value in facts)
    stops = "".join(f"<tr><td>{_e(reason)}</td><td>{_e(count)}</td></tr>"
                    for reason, count in sorted(summary.get("stop_reasons", {}).items()))
    return (f'<h1>coding-loop evaluation</h1><div class="facts"><table>{rows}</table>'
            f"<table><tr><th>stop reason</th><th>runs</th></tr>{stops}</table></div>\n")


def _grid(summary, attempts):
    """One row per task: its pass@1 and pass@k, then one coloured link per attempt."""
    tasks = dict.fromkeys(list(summary.get("tasks", {})) + [a["task_name"] for a in attempts])
    rows = []
    for task in tasks:
        stats = summary.get("tasks", {}).get(task, {})
        cells = "".join(_cell(a) for a in attempts if a["task_name"] == task)
        rows.append(f"<tr><th>{_e(task)}</th><td>{_e(_ratio(stats.get('pass@1')))}</td>"
                    f"<td>{_e(_ratio(stats.get('pass@k')))}</td><td>{cells}</td></tr>")
    legend = " ".join(f'<span class="badge" data-verdict="{v}">{v}</span>' for v in VERDICT_COLOURS)
    return (f"<h2>Tasks × attempts</h2><table class=\"grid\"><tr><th>task</th><th>pass@1</th>"
            f"<th>pass@{_e(summary.get('k', 'k'))}</th><th>attempts</th></tr>{''.join(rows)}</table><p>{legend}</p>\n")


def _cell(attempt):
    """A link to the attempt's section, labelled with its number and coloured by its verdict."""
    attempt_id, verdict = str(attempt["attempt_id"]), _verdict(attempt)
    return (f'<a class="cell" data-verdict="{_e(verdict, False)}" href="#{_anchor(attempt_id)}" '
            f'title="{_e(attempt_id, False)}: {_e(verdict, False)}">{_e(attempt_id.rsplit("-", 1)[-1])}</a>')


def _section(attempt):
    """Everything about one attempt, in the order a person checks it."""
    verdict, stop = _verdict(attempt), attempt.get("stop") or {}
    parts = [f'<section id="{_anchor(attempt["attempt_id"])}"><h2>{_e(attempt["attempt_id"])}</h2>',
             f'<p><span class="badge" data-verdict="{_e(verdict, False)}">{_e(verdict)}</span> '
             f"stopped: <b>{_e(stop.get('reason', 'none'))}</b>"
             + (f" ({_e(stop['error'])})" if "error" in stop else "")]
    if "final_tests" in attempt:
        parts.append(f" · final tests: {_e(result_line(attempt['final_tests']))}")
    parts.append("</p>")
    if "infra_failure" in attempt:
        parts.append(f'<p class="error">Infra failure: {_e(attempt["infra_failure"])}</p>')
    parts += [_claim(attempt.get("claim")), _grades(attempt.get("grades"))]
    if attempt.get("task"):
        parts.append(f"<details><summary>the task as given</summary><pre>{_e(attempt['task'])}</pre></details>")
    parts.append(_transcript(attempt.get("events", [])))
    parts.append(_diff(attempt) + "</section>\n")
    return "".join(parts)


def _claim(claim):
    """The model's final message, flagged when the independent verdict says otherwise."""
    if not claim:
        return ""
    said = f"<q class=\"say\">{_e(claim.get('text'))}</q>" if claim.get("text") else "<i>(no final message)</i>"
    flags = " <span class=\"tag\">claims success</span>" if claim.get("claims_success") else ""
    if claim.get("contradicted"):
        flags += ' <strong class="contradicted">⚠ claim contradicted by the verdict</strong>'
    return f"<p>Model's final message: {said}{flags}</p>"


def _grades(grades):
    """The grades as a two-row table of ✓ and ✗ (the verdict is shown above it)."""
    if not grades:
        return ""
    shown = [(name, value) for name, value in grades.items() if name != "verdict"]
    head = "".join(f"<th>{_e(name)}</th>" for name, _ in shown)
    marks = "".join('<td class="ok">✓</td>' if value is True else '<td class="no">✗</td>'
                    if value is False else f"<td>{_e(value)}</td>" for _, value in shown)
    return f"<table><tr>{head}</tr><tr>{marks}</tr></table>"


def _transcript(events):
    """Events in order, grouped by turn: thinking (folded), text, then tool calls and nudges."""
    turns = {}
    # A deadline can stop a run between a tool_start and its tool_result: show those starts too.
    answered = {(e.get("turn"), e.get("index")) for e in events if e.get("type") == "tool_result"}
    for event in events:
        kind, key = event.get("type"), (event.get("turn"), event.get("index"))
        turn = turns.setdefault(key[0], {"thinking": [], "text": [], "items": []})
        if kind in ("thinking_delta", "text_delta"):
            turn["thinking" if kind == "thinking_delta" else "text"].append(str(event.get("text", "")))
        elif kind == "tool_result" or kind == "tool_start" and key not in answered:
            turn["items"].append(_tool(event))
        elif kind == "nudge":
            turn["items"].append(f'<p class="nudge">nudge ({_e(event.get("kind"))}): '
                                 f'<span class="say">{_e(event.get("text"))}</span></p>')
    return "<h3>Transcript</h3>" + "".join(_turn(number, turn) for number, turn in turns.items())


def _turn(number, turn):
    """One turn: its thinking folded away, its text, then what the harness did with it."""
    out = f"<h4>turn {_e(number)}</h4>"
    if turn["thinking"]:
        out += f"<details><summary>thinking</summary><pre>{_e(''.join(turn['thinking']))}</pre></details>"
    if turn["text"]:
        out += f"<p class=\"say\">{_e(''.join(turn['text']))}</p>"
    return out + "".join(turn["items"])


def _tool(event):
    """A tool call with its result in one line; long output (tests, files) folded."""
    how = (' <span class="tag">written as text</span>' if event.get("written_as_text") else
           ' <span class="tag">by the harness</span>' if event.get("by_harness") else "")
    arguments = event.get("arguments")
    compact = _json(arguments, None) if arguments else ""
    # Short arguments stay on the call's line; long ones (replace_text's code) get a block.
    shown = f" <code>{_e(compact)}</code>" if len(compact) <= 80 else f"<pre>{_e(_json(arguments))}</pre>"
    call = f"<code>{_e(event.get('name'))}</code>{how}{shown}"
    result = event.get("result")
    if not isinstance(result, dict):
        return f'<div class="tool">{call}<p class="error">no result (the run stopped first)</p></div>'
    line = f"<p class=\"{'error' if 'error' in result else ''}\">→ {_e(result_line(result))}</p>"
    body = result.get("output", result.get("text"))
    folded = f"<details><summary>output</summary><pre>{_e(body)}</pre></details>" if body is not None else ""
    return f'<div class="tool">{call}{line}{folded}</div>'


def _diff(attempt):
    """The unified diff of the editable files, added and removed lines coloured."""
    files = ", ".join(_e(name) for name in attempt.get("changed_files") or []) or "none"
    lines = []
    for line in str(attempt.get("diff") or "").splitlines():
        kind = ("hunk" if line.startswith("@@") else "" if line.startswith(("+++", "---")) else
                "add" if line.startswith("+") else "del" if line.startswith("-") else "")
        lines.append(f'<span class="{kind}">{_e(line)}</span>' if kind else _e(line))
    shown = f'<pre class="diff">{chr(10).join(lines)}</pre>' if lines else "<p>(no diff)</p>"
    return f"<h3>Diff</h3><p>changed files: {files}</p>{shown}"
