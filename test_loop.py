"""The loop's contract, driven by scripted turns with the real tools on a copy of the sample."""
import json

import pytest

from agent_loop import SYSTEM, agent_events
from repo_tools import RepoTools
from testing.scripted import ScriptedChat, call, calls, done, text, thinking
from tests.helpers import FIX_NEW, FIX_OLD, READ, TASK, of_type, results, run

# --- assembling a streamed turn -------------------------------------------------------

def test_streamed_text_is_emitted_as_it_arrives_and_joined_once(tools):
    chat = ScriptedChat([text("The fix "), text(""), text("is in "), text("path_rules.py."), done()])
    events = run(chat, tools)
    assert [e["text"] for e in of_type(events, "text_delta")] == ["The fix ", "is in ", "path_rules.py."]
    assert events[-1] == {"type": "stopped", "turn": 1, "reason": "assistant_finished"}


def test_thinking_is_streamed_and_sent_back_with_the_assistant_message(tools):
    chat = ScriptedChat([thinking("Read "), thinking("first."), done(tool_calls=[READ])],
                        [text("Done."), done()])
    events = run(chat, tools)
    assert [e["text"] for e in of_type(events, "thinking_delta")] == ["Read ", "first."]
    assistant = chat.requests[1][0][2]
    assert assistant == {"role": "assistant", "content": "", "thinking": "Read first.",
                         "tool_calls": [READ]}


def test_calls_on_the_done_chunk_are_dispatched(tools):
    chat = ScriptedChat([text("Let me look."), done(tool_calls=[call("read_file", path="path_rules.py"),
                                                                call("read_file", path="tests/test_path_rules.py")])],
                        [text("Read both."), done()])
    events = run(chat, tools)
    assert [r["path"] for r in results(events)] == ["path_rules.py", "tests/test_path_rules.py"]


def test_calls_from_several_chunks_are_all_dispatched_in_order(tools):
    chat = ScriptedChat([calls(call("read_file", path="path_rules.py")),
                         calls(call("nope"), call("read_file", path="tests/test_path_rules.py")),
                         done(tool_calls=[call("read_file", path="x")])],
                        [text("ok"), done()])
    events = run(chat, tools)
    starts = of_type(events, "tool_start")
    assert [(e["index"], e["name"]) for e in starts] == [
        (0, "read_file"), (1, "nope"), (2, "read_file"), (3, "read_file")]
    assert [e["arguments"].get("path") for e in starts] == ["path_rules.py", None, "tests/test_path_rules.py", "x"]
    assert [e["index"] for e in of_type(events, "tool_result")] == [0, 1, 2, 3]


def test_content_thinking_and_calls_in_one_chunk_are_all_kept(tools):
    mixed = calls(READ, content="Running the tests.")
    mixed["message"]["thinking"] = "Check first."
    chat = ScriptedChat([mixed, done()], [text("ok"), done()])
    events = run(chat, tools)
    assert of_type(events, "text_delta")[0]["text"] == "Running the tests."
    assert of_type(events, "thinking_delta")[0]["text"] == "Check first."
    assert [e["name"] for e in of_type(events, "tool_start")] == ["read_file"]


def test_tools_run_only_after_the_whole_stream_including_chunks_after_done(tools):
    chat = ScriptedChat([calls(READ), text("still "), done(), text("streaming")],
                        [text("ok"), done()])
    events = run(chat, tools)
    kinds = [e["type"] for e in events]
    assert kinds.index("tool_start") > max(i for i, k in enumerate(kinds[:5]) if k == "text_delta")
    assert chat.closed_streams == 0  # every stream was read to its end, not cut at done
    assert chat.requests[1][0][2]["content"] == "still streaming"


def test_next_request_carries_assistant_then_one_tool_message_per_call_in_order(tools):
    first = [call("read_file", path="path_rules.py"), call("nope")]
    chat = ScriptedChat([text("Reading."), done(tool_calls=first)], [text("ok"), done()])
    events = run(chat, tools)
    messages, schemas = chat.requests[1]
    assert schemas == tools.schemas
    assert messages == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
        {"role": "assistant", "content": "Reading.", "tool_calls": first},
        {"role": "tool", "tool_name": "read_file", "content": json.dumps(results(events)[0])},
        {"role": "tool", "tool_name": "nope", "content": json.dumps(results(events)[1])},
    ]
    assert chat.requests[0][0] == messages[:2]


def test_requests_already_sent_are_not_changed_by_later_turns(tools):
    kept = []
    script = ScriptedChat([done(tool_calls=[READ])], [text("ok"), done()])
    chat = lambda messages, schemas: (kept.append(messages), script(messages, schemas))[1]
    run(chat, tools)
    assert len(kept[0]) == 2 and len(kept[1]) == 4


# --- malformed calls become errors the model reads -------------------------------------

@pytest.mark.parametrize("bad_call, expected", [
    ({"function": {"arguments": {}}}, "no function name"),
    ({"function": {"name": "", "arguments": {}}}, "no function name"),
    ({"function": "read_file"}, "no function name"),
    ({}, "no function name"),
    ({"function": {"name": "delete_repo", "arguments": {}}}, "unknown tool 'delete_repo'"),
    ({"function": {"name": "__init__", "arguments": {}}}, "unknown tool '__init__'"),
    ({"function": {"name": "invoke", "arguments": {}}}, "unknown tool 'invoke'"),
    ({"function": {"name": "read_file", "arguments": '{"path": "path_rules.py"}'}}, "must be a JSON object"),
    ({"function": {"name": "read_file", "arguments": ["path_rules.py"]}}, "must be a JSON object"),
    ({"function": {"name": "read_file"}}, "must be a JSON object"),
    ({"function": {"name": "read_file", "arguments": {"file": "path_rules.py"}}}, "unexpected: ['file']"),
    ({"function": {"name": "read_file", "arguments": {}}}, "missing: ['path']"),
    ({"function": {"name": "read_file", "arguments": {"path": 3}}}, "must be a string"),
    ({"function": {"name": "replace_text", "arguments": {"old": "x"}}}, "missing: ['new']"),
    ({"function": {"name": "run_tests", "arguments": {"cmd": "rm -rf /"}}}, "unexpected: ['cmd']"),
])
def test_malformed_calls_become_error_results_and_the_loop_goes_on(tools, workspace, bad_call, expected):
    before = (workspace / "path_rules.py").read_bytes()
    chat = ScriptedChat([done(tool_calls=[bad_call])], [text("ok"), done()])
    events = run(chat, tools)
    (result,) = results(events)
    assert list(result) == ["error"] and expected in result["error"]
    assert events[-1]["reason"] == "assistant_finished"
    tool_message, correction = chat.requests[1][0][-2:]
    assert json.loads(tool_message["content"]) == result
    assert correction == {"role": "user", "content": of_type(events, "nudge")[0]["text"]}
    assert of_type(events, "nudge")[0]["kind"] == "calls_refused"
    assert (workspace / "path_rules.py").read_bytes() == before


def test_malformed_calls_are_sent_back_in_a_shape_the_sdk_accepts(tools):
    chat = ScriptedChat([done(tool_calls=[{"function": {"name": "read_file", "arguments": "x"}}])],
                        [text("ok"), done()])
    run(chat, tools)
    assert chat.requests[1][0][2]["tool_calls"] == [{"function": {"name": "read_file", "arguments": {}}}]


# --- every way a run stops --------------------------------------------------------------

def test_model_exception_at_request_is_a_model_error(tools):
    chat = ScriptedChat(ConnectionError("server gone"))
    events = run(chat, tools)
    assert events[-1] == {"type": "stopped", "turn": 1, "reason": "model_error",
                          "error": "ConnectionError: server gone"}


def test_model_exception_mid_stream_keeps_deltas_and_runs_no_tool(tools):
    chat = ScriptedChat([text("Reading"), calls(call("run_tests")), RuntimeError("stream broke")])
    events = run(chat, tools)
    assert of_type(events, "text_delta")[0]["text"] == "Reading"
    assert of_type(events, "tool_start") == []
    assert events[-1]["reason"] == "model_error" and "stream broke" in events[-1]["error"]


def test_stream_without_done_is_incomplete_and_runs_no_tool(tools):
    chat = ScriptedChat([text("I will"), calls(call("run_tests"))])
    events = run(chat, tools)
    assert of_type(events, "tool_start") == []
    assert events[-1] == {"type": "stopped", "turn": 1, "reason": "incomplete_model_turn"}


def test_length_stop_is_incomplete_and_runs_no_tool(tools):
    chat = ScriptedChat([text("Let me "), done(reason="length", tool_calls=[call("run_tests")])])
    events = run(chat, tools)
    assert of_type(events, "tool_start") == []
    assert events[-1]["reason"] == "incomplete_model_turn"


@pytest.mark.parametrize("turn", [[done()], [text("  \n"), done()], [thinking("hmm"), done()]])
def test_a_complete_turn_without_text_or_calls_gets_an_empty_turn_nudge(tools, turn):
    chat = ScriptedChat(turn, [text("Done."), done()])
    events = run(chat, tools)
    (correction,) = of_type(events, "nudge")
    assert correction["kind"] == "empty_turn" and "empty" in correction["text"]
    assert chat.requests[1][0][-1] == {"role": "user", "content": correction["text"]}
    assert events[-1] == {"type": "stopped", "turn": 2, "reason": "assistant_finished"}


def test_max_turns_makes_exactly_that_many_requests(tools):
    chat = ScriptedChat(*[[done(tool_calls=[call("read_file", path="path_rules.py")])]] * 5)
    events = run(chat, tools, max_turns=3)
    assert len(chat.requests) == 3 and chat.remaining_turns == 2
    assert len(of_type(events, "model_start")) == 3
    assert events[-1] == {"type": "stopped", "turn": 3, "reason": "max_turns"}


def test_max_turns_one_runs_the_first_turns_tools_and_stops(tools):
    chat = ScriptedChat([done(tool_calls=[READ])])
    events = run(chat, tools, max_turns=1)
    assert results(events)[0]["path"] == "path_rules.py"
    assert events[-1]["reason"] == "max_turns" and len(chat.requests) == 1


@pytest.mark.parametrize("bad", [0, -1, True, False, 1.5, "3", None])
def test_max_turns_must_be_a_positive_int(tools, bad):
    chat = ScriptedChat([text("never"), done()])
    with pytest.raises(ValueError, match="max_turns"):
        list(agent_events(chat, tools, TASK, max_turns=bad))
    assert chat.requests == []


@pytest.mark.parametrize("bad", [0, -5, True, "10", float("nan")])
def test_deadline_must_be_positive_seconds(tools, bad):
    with pytest.raises(ValueError, match="deadline"):
        list(agent_events(ScriptedChat(), tools, TASK, deadline=bad))


class SlowTools(RepoTools):
    """Real tools whose every call takes `seconds` on the test clock."""

    def __init__(self, root, clock, seconds):
        super().__init__(root)
        self.clock, self.seconds = clock, seconds

    def invoke(self, name, arguments, **options):
        self.clock.advance(self.seconds)
        return super().invoke(name, arguments, **options)


def test_deadline_is_checked_before_each_request(workspace, clock):
    chat = ScriptedChat([done(tool_calls=[READ])], [text("late"), done()])
    events = run(chat, SlowTools(workspace, clock, 61), deadline=60)
    assert len(chat.requests) == 1 and results(events)[0]["path"] == "path_rules.py"
    assert events[-1] == {"type": "stopped", "turn": 1, "reason": "deadline"}


def test_deadline_reached_after_done_runs_no_tool(tools, clock):
    chat = ScriptedChat([done(tool_calls=[READ]), lambda: clock.advance(61)])
    events = run(chat, tools, deadline=60)
    assert of_type(events, "tool_start") == [] and events[-1]["reason"] == "deadline"


def test_deadline_mid_stream_closes_the_stream_and_runs_no_tool(tools, clock):
    chat = ScriptedChat([text("one"), lambda: clock.advance(30), text("two"), done(tool_calls=[READ])])
    events = run(chat, tools, deadline=10)
    assert [e["text"] for e in of_type(events, "text_delta")] == ["one"]
    assert of_type(events, "tool_start") == [] and chat.closed_streams == 1
    assert events[-1]["reason"] == "deadline"


def test_a_model_error_after_the_deadline_is_reported_as_the_deadline(tools, clock):
    chat = ScriptedChat([text("one"), lambda: clock.advance(30), TimeoutError("read timed out")])
    events = run(chat, tools, deadline=10)
    assert events[-1] == {"type": "stopped", "turn": 1, "reason": "deadline"}


def test_deadline_is_checked_between_tool_calls(workspace, clock):
    chat = ScriptedChat([done(tool_calls=[READ, call("run_tests")])])
    events = run(chat, SlowTools(workspace, clock, 100), deadline=50)
    assert [e["name"] for e in of_type(events, "tool_start")] == ["read_file"]
    assert events[-1]["reason"] == "deadline"


def test_consumer_closing_the_loop_closes_the_stream(tools):
    chat = ScriptedChat([text("a"), text("b"), done()])
    loop = agent_events(chat, tools, TASK)
    assert next(loop)["type"] == "model_start"
    assert next(loop)["text"] == "a"
    loop.close()
    assert chat.closed_streams == 1


def test_system_prompt_states_the_rules_the_model_must_follow():
    for rule in ("read_file", "run_tests", "replace_text", "Never edit the tests", "real tool calls",
                 "data, not instructions", "exit_code 0"):
        assert rule in SYSTEM


# --- the model's words decide nothing; the tests do ----------------------------------

def test_a_final_claim_of_success_does_not_make_the_tests_pass(tools):
    chat = ScriptedChat([text("All tests pass now!"), done()])
    events = run(chat, tools)
    assert events[-1]["reason"] == "assistant_finished"
    independent = tools.run_tests()
    assert independent["exit_code"] == 1 and independent["failed"] == 1


def test_full_scripted_repair_goes_from_one_failure_to_all_passing(tools, workspace):
    chat = ScriptedChat(
        [thinking("Read the code and the test."),
         done(tool_calls=[call("read_file", path="path_rules.py"), call("read_file", path="tests/test_path_rules.py")])],
        [done(tool_calls=[call("run_tests")])],
        [text("Backslashes are not split."), done(tool_calls=[call("replace_text", old=FIX_OLD, new=FIX_NEW)])],
        [done(tool_calls=[call("run_tests")])],
        [text("Normalised "), text("separators; all tests pass."), done()])
    tests_before = (workspace / "tests/test_path_rules.py").read_bytes()
    events = run(chat, tools)
    first_run, edit, second_run = results(events)[2:]
    assert (first_run["exit_code"], first_run["passed"], first_run["failed"]) == (1, 3, 1)
    assert edit == {"path": "path_rules.py", "replaced": 1}
    assert (second_run["exit_code"], second_run["passed"], second_run["failed"]) == (0, 4, 0)
    assert events[-1] == {"type": "stopped", "turn": 5, "reason": "assistant_finished"}
    assert tools.run_tests()["exit_code"] == 0  # the independent verdict
    assert (workspace / "tests/test_path_rules.py").read_bytes() == tests_before
