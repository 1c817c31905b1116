"""check_first: a check of the harness runs the tests that failed at the start, then the whole selection.

Scripted turns with the real tools and pytest: on a copy of the sample (one test of four fails),
and on a small user project run by fix.py's own command (`--tests "tests --deselect X"`, a
parametrized test whose ids hold a space and brackets). A recording of such a run replays, real
and served, and a doctored selection is named by the served replay.
"""
import io
import json
import shlex
import sys

import pytest

from agent_loop import LoopSettings
from fixing.project_pytest import project_command
from fixing.task import build_task
from loop.turn_policy import BROKE
from replay import replay
from repo_tools import RepoTools
from command_line.printer import Printer
from attempt.run import recording_of
from runs.recording import run_recorded
from runs.recording_file import save
from testing.scripted import ScriptedChat, call, done, text
from tests.helpers import FIX, FIX_NEW, FIX_OLD, of_type, run
from tests.user_repos import PROJECT, make_project
from workspace.pytest_run import run_pytest
from workspace.test_selection import failing_ids, narrowed

FAILING = "tests/test_path_rules.py::test_accepts_windows_separators"
# Fixes the Windows test, and keeps "docs/src/conf.py", so test_skips_python_files_outside_src breaks.
BREAKS = call("replace_text", old='if parts[0] == "src"', new='if "src" in parts')
WRONG = call("replace_text", old=FIX_OLD, new='parts = path.split(".")')


def harness_runs(events):
    """(selection, result) of each test run the harness made itself."""
    starts = [e for e in of_type(events, "tool_start") if e.get("by_harness")]
    ends = [e for e in of_type(events, "tool_result") if e.get("by_harness")]
    return [(start.get("only"), end["result"]) for start, end in zip(starts, ends, strict=True)]


def test_the_first_check_runs_only_the_failing_test_then_the_whole_selection(tools):
    start = tools.run_tests()
    events = run(ScriptedChat([done(tool_calls=[FIX])]), tools, check_edits=True, start_tests=start)
    (first, narrow), (whole, every) = harness_runs(events)
    assert first == [FAILING] and (narrow["passed"], narrow["failed"], narrow["exit_code"]) == (1, 0, 0)
    assert whole is None and (every["passed"], every["failed"]) == (4, 0)
    assert events[-1]["reason"] == "tests_passed"


def test_the_terminal_says_which_check_ran_only_the_failing_tests(tools):
    out = io.StringIO()
    printer = Printer(out=out)
    for event in run(ScriptedChat([done(tool_calls=[FIX])]), tools, check_edits=True, start_tests=tools.run_tests()):
        printer(event)
    lines = out.getvalue().splitlines()
    assert "> run_tests() [by the harness: the 1 test that failed at the start]" in lines
    assert lines.count("> run_tests() [by the harness]") == 1  # then the whole selection


def test_a_change_that_fixes_the_failing_test_but_breaks_another_is_told_which(tools):
    start = tools.run_tests()
    chat = ScriptedChat([done(tool_calls=[FIX, BREAKS])], [text("I give up."), done()])
    events = run(chat, tools, check_edits=True, start_tests=start)
    (_, narrow), (_, every) = harness_runs(events)
    assert narrow["exit_code"] == 0 and every["failed"] == 1
    nudge = of_type(events, "nudge")[0]["text"]
    assert nudge.startswith(f"{BROKE} (run_tests: exit_code 1, 3 passed, 1 failed")
    assert "test_skips_python_files_outside_src" in nudge and "windows" not in nudge
    assert chat.requests[1][0][-1]["content"] == nudge


def test_under_preload_the_broken_tests_and_the_changed_file_are_the_correction(tools):
    start = tools.run_tests()
    chat = ScriptedChat([done(tool_calls=[FIX, BREAKS])], [text("I give up."), done()])
    events = run(chat, tools, check_edits=True, start_tests=start, context="preload")
    nudge = of_type(events, "nudge")[0]["text"]
    assert nudge.startswith(f"{BROKE}.\n\nThe tests that fail now:")
    assert "test_skips_python_files_outside_src" in nudge and 'if "src" in parts' in nudge


def test_a_first_check_that_still_fails_is_the_correction_and_the_whole_selection_waits(tools):
    start = tools.run_tests()
    chat = ScriptedChat([done(tool_calls=[WRONG])], [text("I give up."), done()])
    events = run(chat, tools, check_edits=True, start_tests=start)
    [(first, narrow)] = harness_runs(events)
    assert first == [FAILING] and narrow["failed"] == 1 and narrow["passed"] == 0
    assert of_type(events, "nudge")[0]["text"].startswith("Your change was applied, but the tests still fail")


def test_verify_finish_checks_the_failing_test_first_too(tools):
    start = tools.run_tests()
    events = run(ScriptedChat([done(tool_calls=[FIX])], [text("Fixed."), done()]), tools, verify_finish=1,
                 start_tests=start)
    assert [only for only, _ in harness_runs(events)] == [[FAILING], None]
    assert events[-1]["reason"] == "assistant_finished"


@pytest.mark.parametrize("settings", [{"check_first": False}, {"start_tests": None}])
def test_off_or_without_a_start_run_the_whole_selection_runs_at_once(tools, settings):
    start = tools.run_tests()
    events = run(ScriptedChat([done(tool_calls=[FIX])]), tools, check_edits=True, **{"start_tests": start, **settings})
    assert [only for only, _ in harness_runs(events)] == [None]


def test_a_recording_from_before_check_first_keeps_the_whole_selection():
    assert LoopSettings.from_recorded({"check_edits": True}).check_first is False
    assert LoopSettings().check_first is True


# --- reading the start run, narrowing the command ---------------------------------------------------

PARAMETRIZED = ("import pytest\n\n\n@pytest.mark.parametrize('n', [1, 2], ids=['one and one', 'c[d]'])\n"
                "def test_doubles(n):\n    from calc.ops import add\n    assert add(n, n) == 2 * n\n")
USER_PROJECT = {**PROJECT, "tests/test_more.py": PARAMETRIZED,
                "tests/test_slow.py": "def test_never():\n    assert False\n"}
USER_IDS = ("tests/test_more.py::test_doubles[one and one]", "tests/test_more.py::test_doubles[c[d]]",
            "tests/test_ops.py::test_add")


def test_fix_command_with_a_deselect_runs_exactly_the_failing_ids_a_parametrized_one_as_one_item(tmp_path):
    repo = make_project(tmp_path / "repo", USER_PROJECT, git=False)
    command = project_command(repo, sys.executable, shlex.split("tests --deselect tests/test_slow.py::test_never"))
    task = build_task("calc", "add is wrong", repo, {"tests/test_ops.py", "tests/test_more.py"}, command,
                      readable=["src/calc/ops.py"], editable=["src/calc/ops.py"])
    tools = RepoTools(repo, task=task)
    start = tools.run_tests()
    assert (start["failed"], start["passed"], start.get("deselected")) == (3, 1, 1)
    assert set(failing_ids(start)) == set(USER_IDS)
    assert narrowed(command, USER_IDS).args[-3:] == USER_IDS  # each id one argv item; `tests` is gone
    events = run(ScriptedChat([done(tool_calls=[call("replace_text", old="return a - b", new="return a + b")])]),
                 tools, check_edits=True, start_tests=start)
    (first, narrow), (whole, every) = harness_runs(events)
    assert sorted(first) == sorted(USER_IDS) and (narrow["passed"], narrow["failed"]) == (3, 0)
    assert whole is None and (every["passed"], every.get("deselected")) == (4, 1)


@pytest.mark.parametrize("files, why", [
    ({"tests/test_a.py": "import missing_module\n"}, "a collection error"),
    ({"tests/test_a.py": "def test_a():\n    pass\n"}, "nothing failed")])
def test_no_failing_ids_when_the_start_run_cannot_name_them_all(tmp_path, files, why):
    repo = make_project(tmp_path / "repo", files, git=False)
    assert failing_ids(run_pytest(repo, 30, "none")) is None, why
    assert failing_ids({"exit_code": 1, "timed_out": True, "failed": 0, "errors": 0, "output": ""}) is None
    cut = {"exit_code": 1, "failed": 2, "errors": 0, "output": "FAILED tests/t.py::test_b - assert 0\n2 failed"}
    assert failing_ids(cut) is None  # two failed, one named: a line was cut from the summary


def test_a_command_with_an_option_it_cannot_read_is_not_narrowed(tmp_path):
    command = project_command(tmp_path, sys.executable, ["--timeout", "30", "tests"])
    assert narrowed(command, USER_IDS) is None
    assert narrowed(project_command(tmp_path, sys.executable, ["-k", "dates", "tests"]), USER_IDS).args[-5:] == (
        "-k", "dates", *USER_IDS)


# --- replay -----------------------------------------------------------------------------------------

def test_a_recording_of_a_first_check_replays_real_and_served_and_a_changed_selection_is_named(tools, tmp_path):
    chat = ScriptedChat([done(tool_calls=[FIX, BREAKS])], [done(tool_calls=[call("replace_text", old=
                        'if "src" in parts', new='if parts[0] == "src"')])])
    body = run_recorded(chat, tools, LoopSettings(check_edits=True, max_turns=2))
    assert [only for only, _ in harness_runs(body["events"])] == [[FAILING], None, [FAILING], None]
    assert body["settings"]["check_first"] is True and body["stop"]["reason"] == "tests_passed"
    path = tmp_path / "checked.json"
    save(path, recording_of(body, source="scripted", model={"name": "scripted"}, server={"api": "scripted", "url": None}))
    for served in (False, True):
        assert replay(path, served=served)["differences"] == []
    doctored = json.loads(path.read_text())
    for event in doctored["events"]:
        if event.get("only"):
            event["only"] = ["tests/test_path_rules.py::test_skips_files_that_are_not_python"]
    path.write_text(json.dumps(doctored))
    differences = replay(path, served=True)["differences"]
    assert any("field 'only[0]'" in d and "test_skips_files_that_are_not_python" in d for d in differences)
