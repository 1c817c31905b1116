"""One attempt's section of a report, in the order a person checks it.

`render_attempt(attempt, where=None, section_id=None, files=False)` returns the section: the
verdict and why the run stopped, the prompt tokens it cost, the model's final message (only
when it finished) beside the verdict that may contradict it, the grades, the independent final
run's failing tests with their E lines, the task, the transcript and the diff; with `files`,
every changed file before and after (report_files.py). evaluate.py's report shows one per
attempt; improve.py's report shows the same sections, so both read alike.

`where` is the attempt file as the page's reader finds it (default `attempts/<id>.json`): every
cut block points there for the whole text. `section_id` is the fragment the grid links to.

What this file deliberately is not: a grader (grades.py is). It shows grades, never computes them.
"""
from evaluation.grades import prompt_tokens
from evaluation.html_parts import anchor, block, diff_block, e, prose
from evaluation.report_files import render_changed_files
from evaluation.report_search import render_candidates
from evaluation.report_transcript import render_transcript
from command_line.printer import result_line
from workspace.pytest_output import failing_tests

FINISHED = "assistant_finished"  # the only stop with a final message: the model chose to stop


def verdict_of(attempt):
    """The attempt's verdict, or "infra failure" when the server or the harness lost it."""
    if "infra_failure" in attempt:
        return "infra failure"
    grades = attempt.get("grades") if isinstance(attempt.get("grades"), dict) else {}
    return str(grades.get("verdict") or attempt.get("verdict") or "unknown")


def render_attempt(attempt, where=None, section_id=None, files=False):
    """Everything about one attempt, as one <section>."""
    attempt_id = str(attempt.get("attempt_id"))
    where = where or f"attempts/{attempt_id}.json"
    parts = [f'<section id="{section_id or anchor(attempt_id)}"><h2>{e(attempt_id)}</h2>', _outcome(attempt)]
    if "infra_failure" in attempt:
        parts.append(f'<p class="error">Infra failure:</p>{block(attempt["infra_failure"], where)}')
    parts += [_claim(attempt, where), _grades(attempt.get("grades")), render_candidates(attempt, where),
              _failures(attempt.get("final_tests"), where)]
    if attempt.get("task"):
        parts.append(f"<details><summary>the task as given</summary>{block(attempt['task'], where)}</details>")
    if "events" in attempt:
        parts.append(render_transcript(attempt["events"], where))
    if "diff" in attempt or attempt.get("changed_files"):
        parts.append(_diff(attempt, where))
    if files:
        parts.append(render_changed_files(attempt, where))
    return "".join(parts) + "</section>\n"


def _outcome(attempt):
    """The verdict badge, the stop reason, the final tests in one line, the prompt tokens."""
    verdict, stop = verdict_of(attempt), attempt.get("stop") if isinstance(attempt.get("stop"), dict) else {}
    out = (f'<p><span class="badge" data-verdict="{e(verdict, False)}">{e(verdict)}</span> '
           f"stopped: <b>{e(stop.get('reason', 'none'))}</b>" + (f" ({e(stop['error'])})" if "error" in stop else ""))
    if isinstance(attempt.get("final_tests"), dict):
        out += f" · final tests: {e(result_line(attempt['final_tests']))}"
    tokens = prompt_tokens(attempt)
    if tokens is not None:
        out += f" · {tokens:,} prompt tokens"
    if isinstance(attempt.get("candidates"), list):  # a search's cost is all its candidates'
        out += f" · {len(attempt['candidates'])} candidates ran"
    return out + "</p>"


def _claim(attempt, where):
    """The model's final message (only a finished run has one), flagged when the independent
    verdict says otherwise. A run stopped for another reason shows its last text in the transcript."""
    claim, stop = attempt.get("claim"), attempt.get("stop") or {}
    if not isinstance(claim, dict):
        return ""
    flags = ' <span class="tag">claims success</span>' if claim.get("claims_success") else ""
    if claim.get("contradicted"):
        flags += ' <strong class="contradicted">⚠ claim contradicted by the verdict</strong>'
    if not isinstance(stop, dict) or stop.get("reason") != FINISHED:
        return f"<p>No final message: the run did not finish on its own.{flags}</p>"
    said = prose(claim["text"], where) if claim.get("text") else "<p><i>(no final message)</i></p>"
    return f'<div class="claim"><p>Model\'s final message:{flags}</p>{said}</div>'


def _grades(grades):
    """The grades as a two-row table of ✓ and ✗ (the verdict is shown above it)."""
    if not isinstance(grades, dict) or not grades:
        return ""
    shown = [(name, value) for name, value in grades.items() if name != "verdict"]
    head = "".join(f"<th>{e(name)}</th>" for name, _ in shown)
    marks = "".join('<td class="ok">✓</td>' if value is True else '<td class="no">✗</td>'
                    if value is False else f"<td>{e(value)}</td>" for _, value in shown)
    return f"<table><tr>{head}</tr><tr>{marks}</tr></table>"


def _failures(final_tests, where):
    """The independent final run's failing tests, each with its E lines; pytest's whole output folded."""
    if not isinstance(final_tests, dict) or final_tests.get("exit_code") == 0:
        return ""
    output = final_tests.get("output")
    failing = failing_tests(output)
    items = "".join(f"<li>{e(test['kind'])} <code>{e(test['name'])}</code>"
                    + (block("\n".join(test["lines"]), where) if test["lines"] else "") + "</li>"
                    for test in failing)
    listed = f"<ul>{items}</ul>" if failing else "<p>(no failing test named in pytest's output)</p>"
    folded = (f"<details><summary>pytest's output</summary>{block(output, where)}</details>"
              if isinstance(output, str) else "")
    return f"<h3>Failing in the final run</h3>{listed}{folded}"


def _diff(attempt, where):
    """The unified diff of the editable files, added and removed lines coloured."""
    names = attempt.get("changed_files") if isinstance(attempt.get("changed_files"), list) else []
    files = ", ".join(e(name) for name in names[:50]) + (f" and {len(names) - 50} more" if len(names) > 50 else "")
    diff = str(attempt.get("diff") or "")
    shown = diff_block(diff, where) if diff else "<p>(no diff)</p>"
    return f"<h3>Diff</h3><p>changed files: {files or 'none'}</p>{shown}"
