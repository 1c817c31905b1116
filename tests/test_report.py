"""Tests for report.py: the evaluation page is complete, inert, bounded, and really renders in a browser.

The attempts are the shipped recordings with grades and claims worked out simply here
(evaluate.py's grading has its own tests), plus one hostile attempt whose every model- or
recording-controlled string tries to break out of the page, and one infra failure.
The browser tests drive Debian's `chromium` through its own CLI (no driver package): one
headless launch dumps the rendered DOM and takes a screenshot, which a small stdlib-only PNG
decoder reads back. Without chromium they skip, except under CI, where they must run.
One attempt's section (failing tests, diffs, bounds) has its own tests in tests/test_report_attempt.py.
"""
import copy
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from evaluation.html_parts import render_page
from evaluation.report import VERDICT_COLOURS, render_report, write_report
from tests.browser import CHROMIUM, chromium, needs_chromium, png_pixels
from workspace.user_tests import is_test

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
# Every way out of an HTML page we could think of, plus a terminal escape and a lone surrogate.
HOSTILE = '<script>alert(1)</script></pre>" onmouseover="alert(2)\' \x1b[2J \ud800'
HOSTILE_TASK = "task " + HOSTILE
SAFE_ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "class", "data-verdict",
                   "href", "title", "id"}


def _load(name):
    return json.loads((RECORDINGS / f"{name}.json").read_text())


def _attempt(recording, task, k):
    """A recording as evaluate.py hands it over: with an id, grades and the final claim."""
    events = recording["events"]
    calls = [e for e in events if e["type"] == "tool_start"]
    edit = next((i for i, e in enumerate(calls) if e["name"] == "replace_text"), len(calls))
    last_turn = recording["stop"]["turn"]
    text = "".join(e["text"] for e in events if e["type"] == "text_delta" and e["turn"] == last_turn)
    claims = "pass" in text.lower()
    return dict(recording, attempt_id=f"{task}-{k}", task_name=task, grades={
        "read_failing_test": any(is_test(str(e["arguments"].get("path", ""))) for e in calls[:edit]),
        "ran_tests_before_edit": any(e["name"] == "run_tests" for e in calls[:edit]),
        "edited": bool(recording["changed_files"]), "tests_unchanged": recording["tests_unchanged"],
        "only_editable_changed": True, "verdict": recording["verdict"]},
        claim={"text": text, "claims_success": claims, "contradicted": claims and recording["verdict"] != "repaired"})


def _hostile_recording():
    """A run whose text, thinking, tool names, results, diff and file names are all hostile."""
    recording = copy.deepcopy(_load("fix_in_one_edit"))
    call = {"turn": 1, "index": 0, "name": HOSTILE, "arguments": {HOSTILE: HOSTILE}}
    tests = {"turn": 1, "index": 1, "name": "run_tests", "arguments": {}}
    recording["events"] = [
        {"type": "model_start", "turn": 1},
        {"type": "thinking_delta", "turn": 1, "text": "HIDDEN-THOUGHT " + HOSTILE},
        {"type": "text_delta", "turn": 1, "text": HOSTILE + " all tests pass"},
        dict(call, type="tool_start"), dict(call, type="tool_result", result={"error": HOSTILE}),
        dict(tests, type="tool_start"), dict(tests, type="tool_result", result={
            "exit_code": 1, "output": HOSTILE, "passed": 0, "failed": 1, "errors": 0}),
        {"type": "tool_start", "turn": 1, "index": 2, "name": "run_tests", "arguments": {}},
        {"type": "nudge", "turn": 1, "kind": HOSTILE, "text": HOSTILE},
        {"type": "stopped", "turn": 1, "reason": HOSTILE}]
    recording["stop"] = recording["events"][-1]
    recording.update(verdict="tests were modified", changed_files=[HOSTILE], task=HOSTILE,
                     diff=f"--- a/{HOSTILE}\n+++ b/{HOSTILE}\n@@ -1 +1 @@\n-{HOSTILE}\n+{HOSTILE}\n")
    return recording


def _attempts():
    attempts = [_attempt(_load(name), "path_rules", k) for k, name in enumerate(
        ["fix_in_one_edit", "claims_pass_tests_fail", "text_call_run"], 1)]
    attempts += [_attempt(recording, HOSTILE_TASK, k) for k, recording in enumerate(
        [_load("finish_checked"), _hostile_recording(), _load("syntax_error_recovery")], 1)]
    attempts.append({"attempt_id": HOSTILE_TASK + "-4", "task_name": HOSTILE_TASK, "infra_failure": HOSTILE})
    return attempts


def _summary(attempts):
    graded = [a for a in attempts if "infra_failure" not in a]
    tasks = {}
    for a in graded:
        stats = tasks.setdefault(a["task_name"], {"attempts": 0, "repaired": 0})
        stats["attempts"] += 1
        stats["repaired"] += a["grades"]["verdict"] == "repaired"
    for stats in tasks.values():
        stats.update({"pass@1": stats["repaired"] / stats["attempts"], "pass@k": 1.0 if stats["repaired"] else 0.0})
    repaired = sum(s["repaired"] for s in tasks.values())
    return {"k": 3, "tasks": tasks, "overall": {"attempts": len(graded), "repaired": repaired,
                                                "pass@1": repaired / len(graded)},
            "stop_reasons": {a["stop"]["reason"]: 1 for a in graded}, "well_formed_turns": 0.9,
            "infra_failures": 1, "model": {"name": HOSTILE, "digest": HOSTILE}, "commit": HOSTILE,
            "dirty": True, "seconds_per_attempt": 4.2, "prompt_tokens_per_attempt": HOSTILE}


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, as a browser's tokenizer sees them."""

    def __init__(self, page):
        super().__init__()
        self.tags = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def with_class(self, name):
        return [attrs for _, attrs in self.tags if name in (attrs.get("class") or "").split()]


ATTEMPTS = _attempts()
SUMMARY = _summary(ATTEMPTS)
PAGE = render_report(SUMMARY, ATTEMPTS)
RUNNING = render_report(SUMMARY, ATTEMPTS[:5], running=True, total=12)


def test_one_cell_per_attempt_each_linking_to_its_section():
    tags = Tags(PAGE)
    cells = tags.with_class("cell")
    assert [c["data-verdict"] for c in cells] == [
        "repaired", "not repaired", "not repaired", "repaired", "tests were modified", "repaired", "infra failure"]
    sections = [attrs["id"] for tag, attrs in tags.tags if tag == "section"]
    assert len(set(sections)) == len(ATTEMPTS)
    assert [c["href"] for c in cells] == ["#" + s for s in sections]


def test_hostile_text_comes_out_inert():
    tags = Tags(PAGE)
    assert "script" not in {tag for tag, _ in tags.tags}
    assert {name for _, attrs in tags.tags for name in attrs} <= SAFE_ATTRIBUTES  # no onmouseover
    assert "\x1b" not in PAGE and "\ud800" not in PAGE
    assert PAGE.count("</pre>") == PAGE.count("<pre")  # no early close of a code block
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;/pre&gt;&quot; onmouseover=" in PAGE
    # Text, thinking, tool name, arguments, results, nudge, stop, diff, claim, task, file, model...
    assert PAGE.count("\\x1b[2J") >= 15 and PAGE.count("\\ud800") >= 15


def test_lone_surrogates_reach_the_disk(tmp_path):
    path = write_report(tmp_path, SUMMARY, ATTEMPTS + [dict(ATTEMPTS[0], attempt_id="\udfff-9")])
    assert path == tmp_path / "report.html"
    assert "<section" in path.read_bytes().decode("utf-8")  # strict: valid UTF-8 throughout
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # the temp file was renamed


def test_claims_diff_thinking_and_tool_calls_are_shown():
    assert PAGE.count("claim contradicted by the verdict") == sum(a.get("claim", {}).get("contradicted", False)
                                                                  for a in ATTEMPTS)
    fix = _load("fix_in_one_edit")["diff"].splitlines()
    added = next(line for line in fix if line.startswith("+ "))
    assert f'<span class="add">{added.replace(chr(34), "&quot;")}</span>' in PAGE
    assert "<details><summary>thinking</summary><pre>HIDDEN-THOUGHT" in PAGE  # folded
    assert "written as text" in PAGE and "by the harness" in PAGE
    assert "exit_code 1, 3 passed, 1 failed" in PAGE  # a run_tests result in short
    assert "no result (the run stopped first)" in PAGE


def test_the_page_needs_no_network():
    assert "http://" not in PAGE and "https://" not in PAGE
    assert "default-src 'none'" in PAGE  # and the browser refuses any fetch we missed
    hrefs = [attrs["href"] for _, attrs in Tags(PAGE).tags if "href" in attrs]
    assert hrefs and all(href.startswith("#") for href in hrefs)


def test_each_cell_shows_its_stop_reason_and_a_contradicted_claim():
    cells = PAGE.split('class="cell"')[1:]
    assert [cell.split("<small>")[1].split("</small>")[0] for cell in cells[:3]] == [
        "finished", 'finished <span class="flag">⚠ claimed</span>', "finished"]
    assert "<small>&lt;script&gt;alert(… (48 more characters)" in cells[4]  # a reason we do not know, cut
    assert "<small>infra</small>" in cells[-1]
    flagged = sum('class="flag"' in cell.split("</a>")[0] for cell in cells)
    assert flagged == sum(a.get("claim", {}).get("contradicted", False) for a in ATTEMPTS) > 0
    assert "the model claimed success, the verdict disagrees" in cells[1].split(">")[0]  # its title


@pytest.mark.parametrize("k, heads", [(1, ["task", "pass@1", "attempts"]),
                                      (3, ["task", "pass@1", "pass@3", "attempts"]),
                                      (True, ["task", "pass@1", "attempts"])])
def test_the_tasks_table_names_its_columns_by_k(k, heads):
    page = render_report(dict(SUMMARY, k=k), ATTEMPTS)
    grid = page.split('<table class="grid">')[1].split("</table>")[0]
    assert [part.split("</th>")[0] for part in grid.split("</tr>")[0].split("<th>")[1:]] == heads
    assert all(row.count("<td>") == len(heads) - 1 for row in grid.split("</tr>")[1:-1])


def test_while_running_the_page_reloads_itself_and_says_how_far_it_got():
    assert RUNNING.count('<meta http-equiv="refresh" content="10">') == 1
    assert '<p class="running">running: 5 of 12 attempts done' in RUNNING
    assert "refresh" not in PAGE and "running:" not in PAGE  # the final page stays still
    assert "running: 5 attempts done" in render_report(SUMMARY, ATTEMPTS[:5], running=True)


def test_prompt_tokens_per_attempt_in_the_header_only_when_counted():
    assert "<th>prompt tokens per attempt</th><td>&lt;script&gt;" in PAGE  # not a number: shown as text
    counted = render_report(dict(SUMMARY, prompt_tokens_per_attempt=12345.6), ATTEMPTS)
    assert "<th>prompt tokens per attempt</th><td>12,346</td>" in counted
    bare = dict(SUMMARY)
    del bare["prompt_tokens_per_attempt"]
    assert "prompt tokens" not in render_report(bare, ATTEMPTS[:1])


def test_a_megabyte_in_every_name_still_makes_a_small_page():
    mb = HOSTILE * 15_000
    huge = dict(ATTEMPTS[1], attempt_id=mb + "-1", task_name=mb, stop={"type": "stopped", "turn": 1, "reason": mb})
    summary = dict(SUMMARY, model={"name": mb, "digest": mb}, commit=mb, tasks={mb: {"pass@1": mb, "pass@k": mb}},
                   stop_reasons={mb: mb})
    page = render_report(summary, [huge], running=True, total=mb)
    assert len(page) < 200_000, len(page)
    assert "\x1b" not in page and "\\x1b[2J" in page  # escaped, never raw
    tags = Tags(page)
    assert "script" not in {tag for tag, _ in tags.tags}


# --- in a real browser ---------------------------------------------------------------------

# One test, so that pytest-xdist cannot split it over workers and launch chromium twice.
@needs_chromium
def test_in_a_real_browser(tmp_path):
    assert CHROMIUM, "CI is set but chromium is not installed: apt-get install -y chromium"
    # The page as it is mid-run: with its refresh, which the policy must not refuse.
    dom, png, console, seconds = chromium(write_report(tmp_path, SUMMARY, ATTEMPTS, running=True, total=9), tmp_path)
    print(f"chromium took {seconds:.2f} s")
    assert "Content Security Policy" not in console, console[-2000:]
    tags = Tags(dom)
    assert len(tags.with_class("cell")) == len(ATTEMPTS) and "running: 7 of 9 attempts done" in dom
    assert "<script" not in dom.lower() and "script" not in {tag for tag, _ in tags.tags}
    assert "http://" not in dom and "https://" not in dom
    # The screenshot: text, tables and cells (not a blank page), and the grid's green and red.
    width, height, pixels = png_pixels(png)
    assert (width, height) == (1200, 900)
    colours = {row[i:i + 3] for row in pixels[::3] for i in range(0, len(row), 3)}
    assert len(colours) > 20
    for verdict in ("repaired", "not repaired"):
        wanted = bytes.fromhex(VERDICT_COLOURS[verdict][1:])
        assert any(all(abs(a - b) <= 6 for a, b in zip(c, wanted)) for c in colours), verdict
    # The refresh really reloads under that policy: the same head, pointed at another page at once
    # (ten seconds are too long to wait), lands there within a virtual time budget.
    page = render_page("refresh", "<p>waiting</p>", running=True)
    (tmp_path / "landed.html").write_text("<!DOCTYPE html><title>landed</title><p>LANDED</p>")
    (tmp_path / "refresh.html").write_text(page.replace('content="10"', 'content="0;url=landed.html"'))
    dom, _, console, _ = chromium(tmp_path / "refresh.html", tmp_path, "--virtual-time-budget=5000")
    assert "LANDED" in dom and "Content Security Policy" not in console, console[-2000:]
