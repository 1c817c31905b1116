"""The evaluation report: one self-contained HTML page a person opens from disk.

evaluate.py calls `write_report(folder, summary, attempts, running=..., total=...)` after every
finished attempt, so the page fills in while the run goes on (and reloads itself until the last
write, which has `running=False`). The page shows the run's facts, a grid of tasks × attempts
(each cell coloured by verdict, with its stop reason and a mark when the model claimed a success
the verdict contradicts), and one section per attempt (report_attempt.py) that says why it failed.

The parts every report shares (escaping, cutting, the page and its Content-Security-Policy) are
in html_parts.py: everything a model, a server or a recording controls is untrusted here.

What this file deliberately is not: a dashboard, a template engine or a web app (no scripts).
"""
from pathlib import Path

from evaluation.html_parts import VERDICT_COLOURS, anchor, e, render_page
from evaluation.report_attempt import render_attempt, verdict_of
from evaluation.report_search import render_coverage
from workspace.files import write_atomic

__all__ = ["VERDICT_COLOURS", "render_report", "write_report"]
# A cell has room for a word or two: each stop reason (agent_loop's) in short.
SHORT_STOPS = {"assistant_finished": "finished", "max_turns": "max turns", "model_error": "model error",
               "incomplete_model_turn": "cut off", "deadline": "deadline", "format_errors": "format",
               "no_progress": "no progress", "unchanged_edits": "unchanged",
               "tests_passed": "tests passed", "cancelled": "cancelled"}


def render_report(summary, attempts, running=False, total=None):
    """The whole page as a string. While the run goes on (`running`), the header says how many
    of the `total` attempts are done and the page reloads itself."""
    body = (_header(summary, attempts, running, total) + render_coverage(summary) + _grid(summary, attempts)
            + "".join(render_attempt(a) for a in attempts))
    return render_page(f"coding-loop evaluation: {_model(summary).get('name', '')}", body, running)


def write_report(folder, summary, attempts, running=False, total=None):
    """Write `folder/report.html` atomically (temp file, then rename; 0644 like every file the
    project writes); return its path. A reader never sees half a page, even mid-run."""
    path = Path(folder) / "report.html"
    write_atomic(path, render_report(summary, attempts, running, total))
    return path


def _model(summary):
    return summary.get("model") if isinstance(summary.get("model"), dict) else {}


def _ratio(value, spec=".2f"):
    """A number as text (not yet escaped); anything else as it is."""
    return format(value, spec) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _header(summary, attempts, running, total):
    """The run's facts and a histogram of stop reasons, side by side."""
    model = _model(summary)
    overall = summary.get("overall") if isinstance(summary.get("overall"), dict) else {}
    facts = [("model", f"{model.get('name')} ({model.get('digest') or 'no digest'})"),
             ("commit", f"{summary.get('commit')}{' (dirty)' if summary.get('dirty') else ''}"),
             ("pass@1", f"{_ratio(overall.get('pass@1'))} ({overall.get('repaired')} of "
                        f"{overall.get('attempts')} attempts repaired)"),
             ("k", summary.get("k")), ("seconds per attempt", _ratio(summary.get("seconds_per_attempt"), ".1f")),
             ("infra failures", summary.get("infra_failures")),
             ("well-formed turns", _ratio(summary.get("well_formed_turns"), ".0%"))]
    if "unchanged_edit_turns" in summary:  # summaries written before it was counted apart lack it
        facts.append(("turns that wrote code back unchanged", _ratio(summary["unchanged_edit_turns"], ".0%")))
    if summary.get("prompt_tokens_per_attempt") is not None:  # only servers that count tokens
        facts.append(("prompt tokens per attempt", _ratio(summary["prompt_tokens_per_attempt"], ",.0f")))
    if summary.get("generated_tokens_per_attempt") is not None:
        facts.append(("generated tokens per attempt", _ratio(summary["generated_tokens_per_attempt"], ",.0f")))
    search = summary.get("search") if isinstance(summary.get("search"), dict) else {}
    if search:  # one search is one attempt: what it ran
        facts.append(("candidates run per attempt", f"{_ratio(search.get('candidates_run_per_attempt'))} "
                                                    f"of {search.get('candidates')}"))
    rows = "".join(f"<tr><th>{name}</th><td>{e(value)}</td></tr>" for name, value in facts)
    reasons = summary.get("stop_reasons") if isinstance(summary.get("stop_reasons"), dict) else {}
    stops = "".join(f"<tr><td>{e(reason)}</td><td>{e(count)}</td></tr>" for reason, count in
                    sorted(reasons.items(), key=lambda item: str(item[0])))
    progress = ""
    if running:
        of = f" of {e(total)}" if total is not None else ""
        progress = f'<p class="running">running: {len(attempts)}{of} attempts done (this page reloads itself)</p>'
    return (f'<h1>coding-loop evaluation</h1>{progress}<div class="facts"><table>{rows}</table>'
            f"<table><tr><th>stop reason</th><th>runs</th></tr>{stops}</table></div>\n")


def _grid(summary, attempts):
    """One row per task: its pass@1 and (when k > 1) pass@k, then one coloured link per attempt."""
    stats = summary.get("tasks") if isinstance(summary.get("tasks"), dict) else {}
    k = summary.get("k")
    with_k = isinstance(k, int) and not isinstance(k, bool) and k > 1  # pass@1 twice says nothing
    rows = []
    for task in dict.fromkeys([str(name) for name in stats] + [str(a.get("task_name")) for a in attempts]):
        mine = stats.get(task) if isinstance(stats.get(task), dict) else {}
        rate_k = f"<td>{e(_ratio(mine.get('pass@k')))}</td>" if with_k else ""
        cells = "".join(_cell(a) for a in attempts if str(a.get("task_name")) == task)
        rows.append(f"<tr><th>{e(task)}</th><td>{e(_ratio(mine.get('pass@1')))}</td>{rate_k}<td>{cells}</td></tr>")
    head_k = f"<th>pass@{k}</th>" if with_k else ""
    legend = " ".join(f'<span class="badge" data-verdict="{v}">{v}</span>' for v in VERDICT_COLOURS)
    return (f'<h2>Tasks × attempts</h2><table class="grid"><tr><th>task</th><th>pass@1</th>{head_k}'
            f"<th>attempts</th></tr>{''.join(rows)}</table><p>{legend} · "
            f'<span class="flag">⚠ claimed</span> the model said it succeeded; the verdict disagrees</p>\n')


def _cell(attempt):
    """A link to the attempt's section: its number, its stop reason in short, and ⚠ when the
    model's claim was contradicted by the verdict; coloured by its verdict."""
    attempt_id, verdict = str(attempt.get("attempt_id")), verdict_of(attempt)
    stop = attempt.get("stop") if isinstance(attempt.get("stop"), dict) else {}
    reason = str(stop.get("reason", "infra" if "infra_failure" in attempt else "none"))
    claim = attempt.get("claim") if isinstance(attempt.get("claim"), dict) else {}
    flag = ' <span class="flag">⚠ claimed</span>' if claim.get("contradicted") else ""
    said = "; the model claimed success, the verdict disagrees" if flag else ""
    return (f'<a class="cell" data-verdict="{e(verdict, False)}" href="#{anchor(attempt_id)}" '
            f'title="{e(attempt_id, False)}: {e(verdict, False)}, stopped: {e(reason, False)}{said}">'
            f"{e(attempt_id.rsplit('-', 1)[-1], limit=12)}<small>{e(SHORT_STOPS.get(reason, reason), limit=14)}"
            f"{flag}</small></a>")
