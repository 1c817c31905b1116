"""The levers that turn a small model's natural answers into repairs: the preloaded context, edits
written as text, corrections it can act on, and the refusal of edits that change nothing. Each is
driven by scripted turns with the real tools and pytest on a copy of the sample."""
import json

import pytest

from agent_loop import LoopSettings
from runs.recording import run_recorded
from testing.scripted import ScriptedChat, call, done, text
from tests.helpers import FIX_NEW, FIX_OLD, TASK, of_type, results, run

SAMPLE_CODE = "path_rules.py"


def fixed_file(workspace):
    return (workspace / SAMPLE_CODE).read_text().replace(FIX_OLD, FIX_NEW)


def whole_file_answer(workspace, tail="```python\nrun_tests()\n```"):
    """What the real 1.5B model wrote: the whole file, named on the line before, then a call as text."""
    return text(f"Here's the modified code for `{SAMPLE_CODE}`:\n\n```python\n{fixed_file(workspace)}```\n\n{tail}")


START = {"exit_code": 1, "passed": 3, "failed": 1, "errors": 0,
         "output": "F...\nFAILED tests/test_path_rules.py::test_accepts_windows_separators - assert [] == ['src/app.py']"}


# --- context="preload" --------------------------------------------------------------------------

def test_preload_puts_the_failures_and_the_files_in_the_first_message(tools, workspace):
    start = tools.run_tests()
    chat = ScriptedChat([text("Done."), done()])
    run(chat, tools, context="preload", start_tests=start)
    first = chat.requests[0][0][1]["content"]
    assert first.startswith(TASK)
    assert "test_accepts_windows_separators" in first and "E   " in first  # the name and the assertion
    assert "3 passed" not in first.split("tests fail now")[0]  # failures come after the prompt
    code, tests = first.index(f"{SAMPLE_CODE}\n```python\n"), first.index("tests/test_path_rules.py\n```python\n")
    assert code < tests  # editable files first
    assert (workspace / SAMPLE_CODE).read_text().rstrip() in first
    assert "...." not in first and "test session starts" not in first  # no progress dots or headers


def test_a_file_that_does_not_fit_the_budget_is_named_not_sent(tools, workspace):
    tests = workspace / "tests/test_path_rules.py"
    tests.write_text(tests.read_text() + "# a long comment\n" * 800)  # 13,600 characters more
    chat = ScriptedChat([text("Done."), done()])
    run(chat, tools, context="preload", start_tests=START)
    first = chat.requests[0][0][1]["content"]
    assert "read it with read_file: tests/test_path_rules.py" in first
    assert "def test_accepts_windows_separators" not in first


def test_reading_a_preloaded_file_again_costs_a_note_until_it_changes(tools):
    chat = ScriptedChat([done(tool_calls=[call("read_file", path=SAMPLE_CODE)])],
                        [done(tool_calls=[call("replace_text", old=FIX_OLD, new=FIX_NEW)])],
                        [done(tool_calls=[call("read_file", path=SAMPLE_CODE), call("run_tests")])],
                        [text("Fixed."), done()])
    events = run(chat, tools, context="preload", start_tests=START)
    sent = [json.loads(m["content"]) for m in chat.requests[-1][0] if m["role"] == "tool"]
    assert sent[0] == {"path": SAMPLE_CODE, "unchanged": True, "note": "unchanged since you last saw it"}
    assert FIX_NEW in sent[2]["text"]  # changed since: the whole text again
    assert sent[3]["output"] == "all 4 tests passed"  # the model reads a short line, not pytest's output
    assert "passed in" not in sent[3]["output"]
    assert "4 passed" in results(events)[3]["output"]  # the event (and the recording) keeps the whole run


def test_a_failing_run_is_shown_to_the_model_as_its_failures(tools):
    chat = ScriptedChat([done(tool_calls=[call("run_tests")])], [text("Done."), done()])
    events = run(chat, tools, context="preload", start_tests=START)
    shown = json.loads([m for m in chat.requests[1][0] if m["role"] == "tool"][0]["content"])["output"]
    assert "FAILED tests/test_path_rules.py::test_accepts_windows_separators" in shown
    assert len(shown) < len(results(events)[0]["output"])


def test_without_preload_nothing_changes_in_what_the_model_reads(tools):
    chat = ScriptedChat([done(tool_calls=[call("run_tests")])], [text("Done."), done()])
    events = run(chat, tools, start_tests=START)
    assert chat.requests[0][0][1]["content"] == "Make the failing test in tests/test_path_rules.py pass."
    shown = json.loads([m for m in chat.requests[1][0] if m["role"] == "tool"][0]["content"])
    assert shown == results(events)[0]


# --- text_edits="run" -----------------------------------------------------------------------------

def test_a_whole_file_answer_is_applied_before_the_call_written_after_it(tools, workspace):
    chat = ScriptedChat([whole_file_answer(workspace), done()], [text("All tests pass now."), done()])
    events = run(chat, tools, text_edits="run", text_calls="run")
    starts = of_type(events, "tool_start")
    assert [(s["name"], s.get("written_as_text")) for s in starts] == [("replace_text", True), ("run_tests", True)]
    assert results(events)[0] == {"path": SAMPLE_CODE, "replaced": 1}
    assert results(events)[1]["exit_code"] == 0
    assert (workspace / SAMPLE_CODE).read_text() == fixed_file(workspace)


def test_text_edits_off_leaves_code_blocks_as_text(tools, workspace):
    chat = ScriptedChat([whole_file_answer(workspace, tail=""), done()])
    events = run(chat, tools)
    assert of_type(events, "tool_start") == [] and events[-1]["reason"] == "assistant_finished"
    assert FIX_NEW not in (workspace / SAMPLE_CODE).read_text()


def test_edits_run_while_calls_written_as_text_are_nudged_not_counted_malformed(tools, workspace):
    chat = ScriptedChat([whole_file_answer(workspace), done()], [text("Done."), done()])
    events = run(chat, tools, text_edits="run")  # text_calls stays "nudge"
    assert [s["name"] for s in of_type(events, "tool_start")] == ["replace_text"]
    assert [n["kind"] for n in of_type(events, "nudge")] == ["tool_call_as_text"]
    assert events[-1]["reason"] == "assistant_finished"


def test_an_edit_that_cannot_be_applied_is_an_error_the_model_can_act_on(tools):
    diff = ("```diff\n--- a/path_rules.py\n+++ b/path_rules.py\n@@ -1,3 +1,3 @@\n"
            "-        parts = path.split('\\\\')\n+        parts = path.replace('\\\\', '/').split('/')\n```")
    chat = ScriptedChat([text(diff), done()], [text("Sorry."), done()])
    events = run(chat, tools, text_edits="run")
    assert "error" in results(events)[0] and "hunk 1" in results(events)[0]["error"]
    nudge = of_type(events, "nudge")[0]
    assert nudge["kind"] == "calls_refused" and nudge["text"].startswith("Your code was not applied")


def test_a_block_for_a_test_file_is_refused(tools, workspace):
    tests = (workspace / "tests/test_path_rules.py").read_text().replace("def test_", "def test_x_", 1)
    chat = ScriptedChat([text(f"**tests/test_path_rules.py**\n```python\n{tests}```"), done()], [text("Ok."), done()])
    events = run(chat, tools, text_edits="run")
    assert "test" in results(events)[0]["error"]
    assert (workspace / "tests/test_path_rules.py").read_text() != tests


# --- corrections under preload, no-op edits ------------------------------------------------------------

def test_under_preload_a_failing_check_hands_back_the_failures_and_the_changed_file(tools, workspace):
    half_fix = call("replace_text", old="if parts[0] == \"src\"", new="if parts[0] in (\"src\",)")
    chat = ScriptedChat([done(tool_calls=[half_fix])], [text("Fixed."), done()], [text("Done."), done()])
    events = run(chat, tools, context="preload", verify_finish=1, start_tests=START)
    nudge = of_type(events, "nudge")[0]
    assert nudge["kind"] == "tests_fail"
    assert "test_accepts_windows_separators" in nudge["text"]
    assert (workspace / SAMPLE_CODE).read_text().rstrip() in nudge["text"]  # the file as it is now
    assert f"{SAMPLE_CODE} on the line before" in nudge["text"] or "replace_text" in nudge["text"]


def test_an_edit_that_changes_nothing_is_refused(tools, workspace):
    before = (workspace / SAMPLE_CODE).read_bytes()
    chat = ScriptedChat(*[[done(tool_calls=[call("replace_text", old=FIX_OLD, new=FIX_OLD)])]] * 2,
                        [text("Done."), done()])
    events = run(chat, tools)
    error = results(events)[0]["error"]
    assert "nothing would change" in error and "write the corrected code" in error
    assert (workspace / SAMPLE_CODE).read_bytes() == before


def test_a_preloaded_run_with_text_edits_repairs_and_replays_served(tools, workspace):
    from replay import ReplayModel
    from runs.recording import loop_settings
    from runs.served_tools import ServedTools
    settings = LoopSettings(context="preload", text_edits="run", text_calls="run", verify_finish=2)
    chat = ScriptedChat([whole_file_answer(workspace), done()], [text("All tests pass now."), done()])
    body = run_recorded(chat, tools, settings)
    assert body["verdict"] == "repaired" and body["settings"]["context"] == "preload"
    recording = {**body, "format": "coding-loop-recording/1", "source": "scripted", "model": {"name": "s"}}
    from agent_loop import agent_events
    replayed = list(agent_events(ReplayModel(recording), ServedTools(recording, tools.task), recording["task"],
                                 loop_settings(recording), start_tests=recording["start_tests"]))
    assert replayed[-1] == body["stop"]


@pytest.mark.parametrize("flags, expected", [
    ([], ("tools", "off")), (["--context", "preload", "--text-edits", "run"], ("preload", "run"))])
def test_the_flags_build_the_settings(flags, expected):
    from record_run import parse_args
    settings = parse_args(["--output", "/tmp/x.json", *flags]).settings
    assert (settings.context, settings.text_edits) == expected


def test_fix_starts_from_small_model_and_the_other_commands_from_the_loops_defaults():
    from agent_loop import LoopSettings
    from fixing.flags import parse_args as fix_flags
    from record_run import parse_args as record_flags
    from settings.named import load_settings
    fixing = fix_flags(["--repo", "."]).settings
    assert fixing == load_settings("small-model-explain") and fixing.candidates > 1 and fixing.context == "preload"
    assert record_flags(["--output", "/tmp/x.json"]).settings == LoopSettings()
    # A flag still wins over the named configuration: fix.py --context tools is the plain ticket.
    assert fix_flags(["--repo", ".", "--context", "tools"]).settings.context == "tools"
    # And --settings names another one: the levers of the first measurement.
    levers = record_flags(["--output", "/tmp/x.json", "--settings", "levers"]).settings
    assert (levers.context, levers.text_edits, levers.text_calls, levers.verify_finish) == ("preload", "run", "run", 2)


def test_under_preload_a_refused_code_answer_is_reminded_of_the_failure(tools, workspace):
    """What the real 1.5B model did: it answered with the file unchanged, three times."""
    unchanged = text(f"```python\n{(workspace / SAMPLE_CODE).read_text()}```")
    chat = ScriptedChat([unchanged, done()], [text("Ok."), done()])
    events = run(chat, tools, context="preload", text_edits="run", start_tests=START)
    assert "no-op" in results(events)[0]["error"]
    nudge = of_type(events, "nudge")[0]["text"]
    assert nudge.startswith("Your code was not applied") and "test_accepts_windows_separators" in nudge
    plain = run(ScriptedChat([unchanged, done()], [text("Ok."), done()]), tools, text_edits="run")
    assert "test_accepts_windows_separators" not in of_type(plain, "nudge")[0]["text"]


# --- answer_hint ------------------------------------------------------------------------------------

HINT = "Say in one sentence what the code does wrong, then give the whole corrected file."


def test_the_answer_hint_ends_the_first_message_and_each_correction(tools, workspace):
    not_the_fix = (workspace / SAMPLE_CODE).read_text().replace("sources = []", "sources = list()")  # still failing
    wrong = text(f"{SAMPLE_CODE}\n```python\n{not_the_fix}```")
    chat = ScriptedChat([wrong, done()], [text("Sorry."), done()])
    events = run(chat, tools, start_tests=tools.run_tests(), context="preload", text_edits="run", offered_tools=(),
                 check_edits=True, max_turns=2, answer_hint=HINT)
    first, correction = chat.requests[0][0][1]["content"], chat.requests[1][0][-1]["content"]
    assert first.endswith("\n\n" + HINT) and "First copy the wrong line" not in first
    assert "The tests still fail:" in correction and correction.endswith("\n\n" + HINT)
    assert events[-1]["type"] == "stopped"


def test_the_answer_hint_is_checked_and_older_recordings_run_without_one():
    assert LoopSettings().answer_hint is None and LoopSettings(answer_hint=HINT).recorded()["answer_hint"] == HINT
    for bad in ("", "   ", 3, "x" * 2001):
        with pytest.raises(ValueError, match="answer_hint must be None or a line of at most 2000 characters"):
            LoopSettings(answer_hint=bad)
    older = {key: value for key, value in LoopSettings().recorded().items() if key != "answer_hint"}
    assert LoopSettings.from_recorded(older) == LoopSettings()


@pytest.mark.parametrize("name, allowed", [
    ("text_calls", "'nudge' or 'run'"), ("context", "'tools' or 'preload'"), ("text_edits", "'off' or 'run'"),
    ("unchanged_edits", "'apart' or 'malformed'"), ("localize", "'off' or 'tests'"),
    ("preload_scope", "'all' or 'focus'"), ("check_edits", "true or false"), ("check_first", "true or false"),
    ("editable_hint", "true or false")])
def test_a_word_or_switch_setting_names_what_it_takes_and_cuts_a_wild_value_short(name, allowed):
    # A settings file is untrusted: a megabyte of junk in one field is one short line, not the megabyte.
    with pytest.raises(ValueError) as refused:
        LoopSettings(**{name: "x" * 100_000})
    assert str(refused.value).startswith(f"{name} must be {allowed}, not 'xxx") and len(str(refused.value)) < 200


@pytest.mark.parametrize("name", ["max_turns", "deadline", "verify_finish", "offered_tools", "candidates", "answer_hint",
                                  "answer_form", "answer_budget", "stop_repeats", "pytest_reading"])
def test_every_setting_that_refuses_a_wild_value_names_it_in_one_short_line(name):
    with pytest.raises(ValueError) as refused:
        LoopSettings(**{name: "x" * 100_000})
    assert str(refused.value).startswith(name) and "'xxx" in str(refused.value) and len(str(refused.value)) < 400
