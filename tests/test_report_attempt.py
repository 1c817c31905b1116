"""Tests for one attempt's section (report_attempt.py and its parts): why an attempt failed is
on the page, readable, inert and bounded.

The attempts are shipped recordings with an id and a claim, changed where a test needs it. The
page-level checks (the grid, the header, the browser) are in tests/test_report.py.
"""
import json
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from evaluation.html_parts import BLOCK_CHARS, render_page
from evaluation.report_attempt import render_attempt
from evaluation.report_files import render_changed_files, split_diff
from workspace.pytest_output import failing_tests

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
HOSTILE = '<script>alert(1)</script></pre>" onmouseover="alert(2)\' \x1b[2J \ud800'
FAILED_OUTPUT = """..F.                                                                     [100%]
=================================== FAILURES ===================================
_______________________ test_accepts_windows_separators ________________________

    def test_accepts_windows_separators():
>       assert python_sources(changed) == ["src/app.py"]
E       AssertionError: assert [] == ['src/app.py']
E         Right contains 1 more item

tests/test_path_rules.py:19: AssertionError
________________________ ERROR at setup of test_cleanup ________________________
E       fixture 'tmp' not found
=========================== short test summary info ============================
FAILED tests/test_path_rules.py::test_accepts_windows_separators - AssertionE...
ERROR tests/test_path_rules.py::test_cleanup
1 failed, 2 passed, 1 error
"""


def _attempt(name, **changes):
    """A shipped recording as evaluate.py hands it over, with `changes` applied."""
    recording = json.loads((RECORDINGS / f"{name}.json").read_text())
    events = recording["events"]
    text = "".join(e["text"] for e in events if e["type"] == "text_delta" and e["turn"] == recording["stop"]["turn"])
    contradicted = "pass" in text and recording["verdict"] != "repaired"
    attempt = dict(recording, attempt_id=f"path_rules-{name}", task_name="path_rules",
                   claim={"text": text, "claims_success": "pass" in text, "contradicted": contradicted})
    return {**attempt, **changes}


def _tags(page):
    """Every start tag as (tag, attributes), as a browser's tokenizer sees them."""
    tags = []
    parser = HTMLParser()
    parser.handle_starttag = lambda tag, attrs: tags.append((tag, dict(attrs)))
    parser.feed(page)
    return tags


def test_the_final_runs_failing_tests_with_their_e_lines():
    assert failing_tests(FAILED_OUTPUT) == [
        {"kind": "FAILED", "name": "tests/test_path_rules.py::test_accepts_windows_separators",
         "lines": ["AssertionError: assert [] == ['src/app.py']", "  Right contains 1 more item"]},
        {"kind": "ERROR", "name": "tests/test_path_rules.py::test_cleanup", "lines": ["fixture 'tmp' not found"]}]
    # Cut before the summary: the sections still name the tests.
    assert [t["name"] for t in failing_tests(FAILED_OUTPUT.split("=====" * 5 + " short")[0])] == [
        "test_accepts_windows_separators", "test_cleanup"]
    assert failing_tests("4 passed") == failing_tests(None) == []
    section = render_attempt(_attempt("claims_pass_tests_fail"))
    assert "<h3>Failing in the final run</h3>" in section
    assert "FAILED <code>tests/test_path_rules.py::test_accepts_windows_separators</code>" in section
    assert "<pre>AssertionError: assert [] == [&#x27;src/app.py&#x27;...c/pkg/mod.py&#x27;]" in section
    assert "Failing in the final run" not in render_attempt(_attempt("fix_in_one_edit"))  # repaired


def test_a_replace_text_is_a_diff_and_other_arguments_read_as_text():
    section = render_attempt(_attempt("claims_pass_tests_fail"))
    assert '<span class="del">-in order, with forward slashes.</span>' in section
    assert '<span class="add">+in order, with forward slashes (Windows paths too).</span>' in section
    assert "&quot;old&quot;" not in section and "{&quot;path" not in section  # not JSON
    assert "<code>read_file</code> path: <code>path_rules.py</code>" in section


def test_the_final_message_only_when_the_model_finished():
    finished = render_attempt(_attempt("claims_pass_tests_fail"))
    assert "Model's final message" in finished and "claim contradicted by the verdict" in finished
    stopped = _attempt("claims_pass_tests_fail", stop={"type": "stopped", "turn": 3, "reason": "max_turns"})
    section = render_attempt(stopped)
    assert "Model's final message" not in section and "No final message" in section
    assert "claim contradicted by the verdict" in section  # the flag stays: the text is in the transcript


def test_code_blocks_in_the_models_text_are_monospace():
    attempt = _attempt("claims_pass_tests_fail")
    attempt["events"].insert(1, {"type": "text_delta", "turn": 1,
                                 "text": "Here:\n```python\nx = 1  # <b>\n```\nthen:\n  ```\nunclosed ``` not a fence"})
    section = render_attempt(attempt)
    assert '<p class="say">Here:</p><pre class="code">x = 1  # &lt;b&gt;</pre><p class="say">then:</p>' in section
    assert '<pre class="code">unclosed ``` not a fence</pre>' in section  # an open fence runs to the end


def test_prompt_tokens_are_summed_over_turns_when_the_server_counted_them():
    live = _attempt("superseded/live_qwen15_t07_run")
    counts = [c["prompt_eval_count"] for turn in live["turns"] for c in turn["chunks"] if c.get("done")]
    assert f" · {sum(counts):,} prompt tokens</p>" in render_attempt(live)
    assert "prompt tokens" not in render_attempt(_attempt("fix_in_one_edit"))  # scripted: no counts


def test_a_huge_attempt_makes_a_small_page_that_says_where_the_rest_is():
    mb = "<b>line</b> of a megabyte\n" * 40_000
    attempt = _attempt("claims_pass_tests_fail", attempt_id="huge-1", task=mb, diff="--- a/p.py\n+++ b/p.py\n"
                       "@@ -1,40000 +1,1 @@\n" + "".join("-" + line + "\n" for line in mb.splitlines()) + "+x\n",
                       changed_files=["p.py"], final_tests={"exit_code": 1, "output": mb + FAILED_OUTPUT})
    attempt["claim"]["text"] = mb
    events = [{"type": "thinking_delta", "turn": 1, "text": mb}, {"type": "text_delta", "turn": 1, "text": mb},
              {"type": "tool_start", "turn": 1, "index": 0, "name": "replace_text",
               "arguments": {"old": mb, "new": mb + "!"}},
              {"type": "tool_result", "turn": 1, "index": 0, "name": "replace_text", "result": {"error": mb}},
              {"type": "tool_start", "turn": 1, "index": 1, "name": "read_file", "arguments": {"path": mb}},
              {"type": "tool_result", "turn": 1, "index": 1, "name": "read_file", "result": {"path": mb, "text": mb}},
              {"type": "nudge", "turn": 1, "kind": "tests_fail", "text": mb}]
    many = [{"type": "text_delta", "turn": n, "text": mb[:10_000]} for n in range(2, 400)]
    attempt["events"] = events + many + [{"type": "stopped", "turn": 400, "reason": "assistant_finished"}]
    attempt["stop"] = attempt["events"][-1]
    started = time.monotonic()
    section = render_attempt(attempt, files=True)
    assert time.monotonic() - started < 5  # linear: about a second on a busy machine
    assert len(section) < 400_000, len(section)  # from 18 MB of JSON
    assert section.count("more characters cut here; the whole text is in attempts/huge-1.json") >= 8
    assert "more turns not shown; the whole transcript is in attempts/huge-1.json" in section
    assert "too long to show here; the whole diff is in attempts/huge-1.json" in section
    # A long diff that is still rebuilt into files: each side is cut, and says so.
    attempt["diff"] = attempt["diff"][:150_000].rsplit("\n", 1)[0].replace("-1,40000 +1,1", "-1,5000 +1,1")
    files = render_changed_files(attempt)
    assert 40_000 < len(files) < 150_000 and files.count("the whole text is in attempts/huge-1.json") == 1
    assert section.count("</pre>") == section.count("<pre")
    blocks = [part.split("</pre>")[0] for part in section.split("<pre")[1:]]
    assert max(map(len, blocks)) < 12 * BLOCK_CHARS  # escaped, each line of a file coloured


def test_changed_files_before_and_after_from_the_pristine_task():
    section = render_changed_files(_attempt("fix_in_one_edit"))
    assert "<h4>path_rules.py</h4><div class=\"files\">" in section  # no "rebuilt" note: the real file
    assert '<span class="del">        parts = path.split(&quot;/&quot;)</span>' in section
    fixed = "        parts = path.replace(&quot;\\\\&quot;, &quot;/&quot;).split(&quot;/&quot;)"
    assert f'<span class="add">{fixed}</span>' in section
    assert section.count("def python_sources(changed_paths):") == 2  # the whole file, both sides
    assert "<h3>Changed files, before and after</h3>" in render_attempt(_attempt("fix_in_one_edit"), files=True)


@pytest.mark.parametrize("change", [{"task_name": "no_such_task"}, {"task_name": HOSTILE},
                                    {"diff": _attempt("fix_in_one_edit")["diff"].replace("path.split", "p.split")}])
def test_changed_files_rebuilt_from_the_diff_when_the_task_does_not_match(change):
    section = render_changed_files(_attempt("fix_in_one_edit", **change))
    assert "rebuilt from the diff" in section and "⋯" in section
    assert section.count("def python_sources(changed_paths):") == 0  # outside the hunk: not recorded
    assert '<span class="add">        parts = path.replace(' in section


def test_only_a_tasks_editable_files_are_ever_read():
    # A recording that names a test file, or a path out of the repository, gets no file read.
    for path in ("tests/test_path_rules.py", "../../../../etc/passwd", "/etc/passwd"):
        diff = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-secret?\n+x\n"
        section = render_changed_files(_attempt("fix_in_one_edit", diff=diff, changed_files=[path]))
        assert "rebuilt from the diff" in section and "root:" not in section and "def test_" not in section


def test_a_removed_line_that_reads_like_a_header_stays_in_its_hunk():
    diff = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n--- a/x\n+++ b/y\n-z\n+w\n"
    assert split_diff(diff) == {"m.py": [(0, [("-", "-- a/x"), ("+", "++ b/y"), ("-", "z"), ("+", "w")])]}


def test_hostile_fields_of_a_section_and_its_files_come_out_inert():
    attempt = _attempt("claims_pass_tests_fail", attempt_id=HOSTILE, task_name=HOSTILE, changed_files=[HOSTILE],
                       diff=f"--- a/{HOSTILE}\n+++ b/{HOSTILE}\n@@ -1 +1 @@\n-{HOSTILE}\n+{HOSTILE}\n",
                       final_tests={"exit_code": 1, "output": FAILED_OUTPUT.replace("test_cleanup", HOSTILE)
                                    .replace("fixture 'tmp' not found", HOSTILE)})
    attempt["claim"]["text"] = f"{HOSTILE}\n```\n{HOSTILE * 100}\n```"  # cut inside the block: a note
    attempt["events"][1:1] = [
        {"type": "text_delta", "turn": 1, "text": f"```{HOSTILE}\n{HOSTILE}"},
        {"type": "tool_start", "turn": 1, "index": 5, "name": "replace_text",
         "arguments": {"old": HOSTILE, "new": HOSTILE + "\n" + HOSTILE, HOSTILE: HOSTILE, "path": HOSTILE}},
        {"type": "tool_start", "turn": 1, "index": 6, "name": HOSTILE, "arguments": HOSTILE}]
    attempt["turns"][0]["chunks"][-1]["prompt_eval_count"] = HOSTILE  # not a count: ignored
    page = render_page(HOSTILE, render_attempt(attempt, files=True), running=True)
    tags = _tags(page)
    assert "script" not in {tag for tag, _ in tags}
    assert {name for _, attrs in tags for name in attrs} <= {"lang", "charset", "http-equiv", "content", "name",
                                                             "class", "id", "data-verdict"}
    assert "\x1b" not in page and "\ud800" not in page and page.count("</pre>") == page.count("<pre")
    assert page.count("\\x1b[2J") >= 15 and "&lt;script&gt;" in page
    assert "the whole text is in attempts/&lt;script&gt;" in page
    page.encode("utf-8")  # strict: every lone surrogate was escaped
