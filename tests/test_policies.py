"""The loop's policies with real small models in mind: calls written as text, malformed turns,
a model that repeats itself, a finish the tests contradict, bounds per turn, and assembly
that does not depend on how the stream was chunked."""
import random
from pathlib import Path

import pytest

from agent_loop import agent_events
from loop.turn_policy import MAX_CALLS_PER_TURN
from replay import ReplayModel, open_recording
from runs.served_tools import ServedTools
from testing.scripted import ScriptedChat, call, done, text
from tests.helpers import FIX_NEW, FIX_OLD, READ, of_type, results, run

RUN = call("run_tests")
JSON_CALL = '```json\n{"name": "read_file", "arguments": {"path": "path_rules.py"}}\n```'
RECORDINGS = sorted((Path(__file__).resolve().parent.parent / "recordings").glob("*.json"))


# --- tool calls written as text ---------------------------------------------------------

def test_a_call_written_as_text_is_not_run_and_the_model_is_told_how_to_call(tools):
    chat = ScriptedChat([text("Let me look.\n" + JSON_CALL), done()], [text("ok"), done()])
    events = run(chat, tools)
    assert of_type(events, "tool_start") == []
    (correction,) = of_type(events, "nudge")
    assert correction["kind"] == "tool_call_as_text"
    assert "read_file" in correction["text"] and "not run" in correction["text"]
    assert "tool call" in correction["text"]
    assistant, user = chat.requests[1][0][2:]
    assert assistant == {"role": "assistant", "content": "Let me look.\n" + JSON_CALL}
    assert user == {"role": "user", "content": correction["text"]}


def test_with_text_calls_run_a_recovered_call_runs_and_goes_back_as_a_native_call(tools):
    chat = ScriptedChat([text("<tool_call>\n"), text('{"name": "read_file", "arguments": {"path": "path_rules.py"}}'),
                         text("\n</tool_call>"), done()], [text("ok"), done()])
    events = run(chat, tools, text_calls="run")
    start, result = of_type(events, "tool_start")[0], of_type(events, "tool_result")[0]
    assert start["written_as_text"] is True and result["written_as_text"] is True
    assert result["result"]["path"] == "path_rules.py" and of_type(events, "nudge") == []
    assistant = chat.requests[1][0][2]
    assert assistant["tool_calls"] == [READ]
    assert chat.requests[1][0][3]["role"] == "tool"


def test_text_in_tool_results_is_never_parsed_as_a_call(tools, workspace):
    # The file the model reads holds a call-shaped string; only the model's own text counts.
    tools.replace_text(FIX_OLD, FIX_OLD + "  # " + '<tool_call>{"name": "run_tests", "arguments": {}}</tool_call>')
    chat = ScriptedChat([done(tool_calls=[READ])], [text("I read it."), done()])
    events = run(chat, tools, text_calls="run")
    assert [e["name"] for e in of_type(events, "tool_start")] == ["read_file"]
    assert events[-1]["reason"] == "assistant_finished"


def test_native_calls_win_and_text_is_not_searched_for_more(tools):
    chat = ScriptedChat([text(JSON_CALL), done(tool_calls=[RUN])], [text("ok"), done()])
    events = run(chat, tools, text_calls="run")
    assert [(e["name"], "written_as_text" in e) for e in of_type(events, "tool_start")] == [("run_tests", False)]


# --- malformed turns --------------------------------------------------------------------

def test_three_malformed_turns_in_a_row_stop_with_format_errors(tools):
    chat = ScriptedChat([done()], [text(JSON_CALL), done()], [done(tool_calls=[call("shell", cmd="ls")])],
                        [text("never asked"), done()])
    events = run(chat, tools)
    assert [e["kind"] for e in of_type(events, "nudge")] == ["empty_turn", "tool_call_as_text"]
    assert events[-1] == {"type": "stopped", "turn": 3, "reason": "format_errors"}
    assert chat.remaining_turns == 1


def test_a_well_formed_turn_resets_the_count_of_malformed_turns(tools):
    chat = ScriptedChat([done()], [text(JSON_CALL), done()], [done(tool_calls=[READ])],
                        [done()], [text(JSON_CALL), done()], [text("Finished."), done()])
    events = run(chat, tools)
    assert len(of_type(events, "nudge")) == 4
    assert events[-1] == {"type": "stopped", "turn": 6, "reason": "assistant_finished"}


def test_a_turn_with_one_refused_and_one_executed_call_is_not_malformed(tools):
    chat = ScriptedChat(*[[done(tool_calls=[call("nope"), READ])] for _ in range(2)], [text("ok"), done()])
    events = run(chat, tools)
    assert of_type(events, "nudge") == [] and events[-1]["reason"] == "assistant_finished"


# --- no progress ------------------------------------------------------------------------

def test_three_identical_calls_get_one_nudge_then_the_next_repeat_stops(tools):
    stuck = call("replace_text", old="old_text", new="new_text")
    chat = ScriptedChat([done(tool_calls=[stuck])], [done(tool_calls=[stuck])], [done(tool_calls=[stuck])],
                        [done(tool_calls=[stuck])], [text("never asked"), done()])
    events = run(chat, tools)
    (warning,) = of_type(events, "nudge")
    assert warning["kind"] == "no_progress" and warning["turn"] == 3 and "replace_text" in warning["text"]
    assert chat.requests[3][0][-1] == {"role": "user", "content": warning["text"]}
    assert events[-1] == {"type": "stopped", "turn": 4, "reason": "no_progress"}


def test_an_alternating_pair_repeated_three_times_counts_as_no_progress(tools):
    stuck = call("replace_text", old="old_text", new="new_text")
    chat = ScriptedChat(*[[done(tool_calls=[stuck, READ])]] * 3, [done(tool_calls=[stuck])])
    events = run(chat, tools)
    assert [e["turn"] for e in of_type(events, "nudge")] == [3]
    assert events[-1] == {"type": "stopped", "turn": 4, "reason": "no_progress"}


def test_the_same_call_with_a_different_result_is_progress(tools):
    # read, edit, read, read: three reads, but the first saw other text than the last two.
    chat = ScriptedChat([done(tool_calls=[READ])], [done(tool_calls=[call("replace_text", old=FIX_OLD, new=FIX_NEW)])],
                        [done(tool_calls=[READ])], [done(tool_calls=[READ])], [text("Fixed."), done()])
    events = run(chat, tools)
    assert of_type(events, "nudge") == [] and events[-1]["reason"] == "assistant_finished"


# --- checking a finish ------------------------------------------------------------------

def test_verify_finish_runs_the_tests_and_hands_failures_back(tools):
    chat = ScriptedChat([text("Fixed it, all tests pass."), done()],
                        [done(tool_calls=[call("replace_text", old=FIX_OLD, new=FIX_NEW)])],
                        [text("Now they pass."), done()])
    events = run(chat, tools, verify_finish=2)
    checks = [e for e in events if e.get("by_harness")]
    assert [(e["type"], e["name"]) for e in checks] == [("tool_start", "run_tests"), ("tool_result", "run_tests")] * 2
    assert [e["result"]["exit_code"] for e in checks if e["type"] == "tool_result"] == [1, 0]
    (correction,) = of_type(events, "nudge")
    assert correction["kind"] == "tests_fail" and "test_accepts_windows_separators" in correction["text"]
    assert chat.requests[1][0][-1] == {"role": "user", "content": correction["text"]}
    assert events[-1] == {"type": "stopped", "turn": 3, "reason": "assistant_finished"}


def test_verify_finish_gives_up_after_n_checks_and_the_finish_stands(tools):
    chat = ScriptedChat([text("Done."), done()], [text("Really done."), done()])
    events = run(chat, tools, verify_finish=1)
    assert len(of_type(events, "nudge")) == 1 and events[-1]["reason"] == "assistant_finished"


def test_verify_finish_is_off_by_default(tools):
    events = run(ScriptedChat([text("Done."), done()]), tools)
    assert [e["type"] for e in events] == ["model_start", "text_delta", "stopped"]


@pytest.mark.parametrize("option, bad", [("text_calls", "maybe"), ("verify_finish", -1), ("verify_finish", True)])
def test_policy_options_are_checked_before_any_request(tools, option, bad):
    chat = ScriptedChat()
    with pytest.raises(ValueError, match=option):
        run(chat, tools, **{option: bad})
    assert chat.requests == []


# --- bounds -----------------------------------------------------------------------------

def test_at_most_32_calls_run_per_turn_and_the_rest_get_an_error_each(tools):
    chat = ScriptedChat([done(tool_calls=[READ] * (MAX_CALLS_PER_TURN + 8))], [text("ok"), done()])
    events = run(chat, tools)
    answers = results(events)
    assert len(answers) == MAX_CALLS_PER_TURN + 8
    assert all("text" in answer for answer in answers[:MAX_CALLS_PER_TURN])
    assert all("only the first 32 run" in answer["error"] for answer in answers[MAX_CALLS_PER_TURN:])
    assert sum(m["role"] == "tool" for m in chat.requests[1][0]) == MAX_CALLS_PER_TURN + 8


# --- assembly does not depend on chunking -------------------------------------------------

def resplit(chunks, rng):
    """The same turn, cut at random points: text and thinking in random fragments (which may
    interleave, each in its own order), calls spread over chunks (some on the done chunk)."""
    whole = {"content": "", "thinking": "", "tool_calls": []}
    last = None
    for chunk in chunks:
        message = chunk.get("message", {})
        for field in ("content", "thinking"):
            whole[field] += message.get(field) or ""
        whole["tool_calls"] += message.get("tool_calls") or []
        last = chunk if chunk.get("done") else last
    parts = {field: _cut(whole[field], rng) for field in ("content", "thinking")}
    order = [field for field in parts for _ in parts[field]]
    rng.shuffle(order)
    out = [{"message": {"role": "assistant", field: parts[field].pop(0)}, "done": False} for field in order]
    split = rng.randint(0, len(whole["tool_calls"]))
    places = sorted(rng.randint(0, len(out)) for _ in range(split))
    for at, tool_call in reversed(list(zip(places, whole["tool_calls"][:split]))):  # back to front: in order
        out.insert(at, {"message": {"role": "assistant", "content": "", "tool_calls": [tool_call]}, "done": False})
    if last is not None:
        out.append({**last, "message": {"role": "assistant", "content": "", "tool_calls": whole["tool_calls"][split:]}})
    return out


def _cut(text, rng):
    points = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 6)))) if len(text) > 1 else []
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)]) if text[a:b]]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_a_turn_resplit_at_random_points_gives_the_identical_next_request(path):
    (recording, task, settings), rng = open_recording(path), random.Random(path.stem)
    for _ in range(25):
        changed = {**recording, "turns": [{**turn, "chunks": resplit(turn["chunks"], rng)} for turn in recording["turns"]]}
        model = ReplayModel(changed)  # checks every request against the recorded one
        events = list(agent_events(model, ServedTools(changed, task), recording["task"], settings,
                                   start_tests=recording.get("start_tests")))
        assert events[-1] == recording["stop"], events[-1]
        assert model.unplayed == 0
