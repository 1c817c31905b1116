"""What a search's candidates need from the loop: the tests after each edit (`check_edits`), code
answers that run when no tool is offered, and a run that can be called off (`cancel`).

Scripted turns, the real tools and pytest on a copy of the sample.
"""
from testing.scripted import ScriptedChat, call, done, text
from tests.helpers import FIX_NEW, FIX_OLD, of_type, results, run


def code_answer(workspace, old, new):
    fixed = (workspace / "path_rules.py").read_text().replace(old, new)
    return [text(f"The separator is wrong.\n\npath_rules.py\n```python\n{fixed}```\n"), done()]


def test_a_green_test_run_after_an_edit_ends_the_run(tools, workspace):
    chat = ScriptedChat(code_answer(workspace, FIX_OLD, FIX_NEW), [text("never asked"), done()])
    events = run(chat, tools, text_edits="run", check_edits=True)
    assert events[-1]["reason"] == "tests_passed" and chat.remaining_turns == 1
    checked = [e for e in of_type(events, "tool_start") if e.get("by_harness")]
    assert [e["name"] for e in checked] == ["run_tests"] and results(events)[-1]["exit_code"] == 0


def test_without_check_edits_a_repaired_run_goes_on_as_before(tools, workspace):
    chat = ScriptedChat(code_answer(workspace, FIX_OLD, FIX_NEW), [text("Done."), done()])
    events = run(chat, tools, text_edits="run")
    assert events[-1]["reason"] == "assistant_finished" and chat.remaining_turns == 0


def test_a_red_test_run_after_an_edit_is_a_correction_with_the_failures(tools, workspace):
    chat = ScriptedChat(code_answer(workspace, FIX_OLD, 'parts = path.split(".")'), [text("I give up."), done()])
    events = run(chat, tools, text_edits="run", check_edits=True, context="preload")
    nudge = of_type(events, "nudge")[0]
    assert nudge["kind"] == "tests_fail" and nudge["text"].startswith("Your change was applied, but the tests still fail")
    assert "test_keeps_python_files_under_src_in_order" in nudge["text"] and "path_rules.py\n```" in nudge["text"]
    assert chat.requests[1][0][-1]["content"] == nudge["text"]  # the next request carries it


def test_a_test_run_the_model_made_after_its_edit_is_not_run_twice(tools, workspace):
    chat = ScriptedChat([done(tool_calls=[call("replace_text", old=FIX_OLD, new=FIX_NEW), call("run_tests")])])
    events = run(chat, tools, check_edits=True)
    assert events[-1]["reason"] == "tests_passed"
    assert not [e for e in of_type(events, "tool_start") if e.get("by_harness")]


def test_code_answers_run_when_no_tool_is_offered_and_a_native_call_does_not(tools, workspace):
    fixed = code_answer(workspace, FIX_OLD, FIX_NEW)
    chat = ScriptedChat([done(tool_calls=[call("replace_text", old=FIX_OLD, new=FIX_NEW)])], fixed)
    events = run(chat, tools, text_edits="run", offered_tools=(), check_edits=True)
    assert chat.requests[0][1] == []  # no tool is offered to the model
    assert "unknown tool 'replace_text'" in results(events)[0]["error"]  # its native call is refused
    assert results(events)[1] == {"path": "path_rules.py", "replaced": 1}  # its code answer runs
    assert events[-1]["reason"] == "tests_passed"


def test_a_run_called_off_stops_cancelled_at_the_next_check_and_closes_its_stream(tools):
    asked = []

    def cancel():  # yes from the third check on
        asked.append(True)
        return len(asked) >= 3
    chat = ScriptedChat([text("one"), text(" two"), text(" three"), done()])
    events = run(chat, tools, cancel=cancel)
    assert events[-1] == {"type": "stopped", "turn": 1, "reason": "cancelled"}
    assert [e["text"] for e in of_type(events, "text_delta")] == ["one"] and chat.closed_streams == 1


def test_without_replace_text_on_offer_the_first_message_asks_for_the_wrong_line_then_the_file(tools):
    chat = ScriptedChat([text("done"), done()])
    run(chat, tools, context="preload", text_edits="run", offered_tools=())
    first = chat.requests[0][0][1]["content"]
    assert "replace_text" not in first
    assert first.endswith("First copy the wrong line exactly as it is, then write it corrected. Then give the "
                          "whole corrected path_rules.py in one ```python block, with path_rules.py on the line "
                          "before the block.")
