"""A reply caught in a loop is cut off early (loop/repetition.py, `stop_repeats`): on real shapes
from live recordings, through the loop on an endless scripted stream, and in linear time.
"""
import itertools
import json
import time
from pathlib import Path

import pytest

from agent_loop import LoopSettings, agent_events
from loop.repetition import STOP_REPEATS, Repeats
from testing.scripted import ScriptedChat, done, text
from tests.helpers import of_type

ROOT = Path(__file__).resolve().parent.parent
# Live replies that looped until the answer ran out (incomplete_model_turn): the candidate's index
# (None: a single run), the turn, and how far into the reply the loop is seen at most. A tool
# call written as text; a sentence of an explanation; a line of code with its numbers changed;
# a docstring; paragraphs numbered anew, whose one repeated sentence comes late.
LOOPS = [
    ("measurements/lift/no-text-edits/attempts/invoice_quantity-2.json", None, 5, 0.15),
    ("measurements/lift/no-verify-finish/attempts/date_range_inclusive-2.json", None, 5, 0.2),
    ("measurements/search/levers/attempts/document_permissions-1.json", None, 2, 0.3),
    ("measurements/search/small-model/attempts/invoice_quantity-2.json", 3, 2, 0.25),
    ("measurements/lift/all-levers/attempts/pagination_last_page-1.json", None, 6, 0.8),
    ("measurements/fix-libraries/definitions/python-slugify.json", 4, 1, 0.9),
]


def replies(recording):
    """(candidate index or None, turn, the reply's text, how its run stopped at that turn)."""
    runs = recording.get("candidates") or [recording]
    for run in runs:
        by_turn = {}
        for event in run["events"]:
            if event["type"] == "text_delta":
                by_turn.setdefault(event["turn"], []).append(event["text"])
        stop = run["stop"]
        for turn, parts in by_turn.items():
            how = stop["reason"] if stop["turn"] == turn else "went on"
            yield run.get("index"), turn, parts, how


def cut_at(parts, limit=STOP_REPEATS):
    """How many characters of the reply were read when the loop was seen, or None."""
    repeats, read = Repeats(limit), 0
    for part in parts:
        read += len(part)
        if repeats.feed(part):
            return read
    return None


@pytest.mark.parametrize("path, index, turn, share", LOOPS)
def test_a_real_loop_is_seen_before_the_answer_runs_out(path, index, turn, share):
    recording = json.loads((ROOT / path).read_text())
    assert recording["source"] == "live"
    (parts,) = [parts for i, t, parts, how in replies(recording) if (i, t) == (index, turn)]
    assert sum(map(len, parts)) > 4_000  # it ran until the answer budget was spent
    assert cut_at(parts) <= share * sum(map(len, parts))


def test_no_live_reply_that_ended_by_itself_is_cut():
    """Every reply of the shipped recordings and of the recordings above: only those that ran out
    of answer anyway may be cut (in all 1,694 live replies under measurements/, none was)."""
    paths = sorted((ROOT / "recordings").glob("*.json")) + [ROOT / path for path, *_ in LOOPS]
    checked = 0
    for path in paths:
        for _index, _turn, parts, how in replies(json.loads(path.read_text())):
            checked += 1
            if how != "incomplete_model_turn":
                assert cut_at(parts) is None, (path.name, _index, _turn)
    assert checked > 60


def test_a_loop_through_the_loop_closes_the_stream_at_once_and_says_what_it_repeated(tools):
    line = "The code does not handle the separator correctly, as the test 12 shows.\n"
    endless = itertools.chain([text("Here is what is wrong.\n")], (text(line.replace("12", str(n))) for n in itertools.count()))
    chat = ScriptedChat(endless)
    events = list(agent_events(chat, tools, "Fix it.", LoopSettings(context="preload", text_edits="run")))
    (stopped,) = of_type(events, "stopped")
    assert stopped["reason"] == "incomplete_model_turn"
    assert stopped["repeated"] == "The code does not handle the separator correctly, as the test # shows."
    assert chat.closed_streams == 1 and len(of_type(events, "text_delta")) == 1 + STOP_REPEATS
    assert of_type(events, "tool_start") == []  # nothing of a cut-off turn runs


def test_off_a_loop_runs_until_the_stream_ends(tools):
    loop = [text("A line that the model says again and again, word for word.\n")] * 20
    chat = ScriptedChat([*loop, done()])
    events = list(agent_events(chat, tools, "Fix it.", LoopSettings(stop_repeats=0)))
    assert events[-1]["reason"] == "assistant_finished" and "repeated" not in events[-1]


@pytest.mark.parametrize("parts, limit, found", [
    (["One sentence that is long enough to count here.", " One sentence that is long enough to count here.", " Next"],
     2, "One sentence that is long enough to count here."),  # the stop, then the space in the next fragment
    (["Line 1 is the same long line as the others, give or take.\n" * 3], 3,
     "Line # is the same long line as the others, give or take."),
    (["else:\n    return result\n" * 50], 2, None),  # short lines repeat in any code
    (["A long line of forty characters or more, once.\n", "Another long line of forty characters, once.\n"], 2, None),
])
def test_units_are_lines_and_sentences_with_their_numbers_as_hash(parts, limit, found):
    repeats = Repeats(limit)
    assert [result for result in map(repeats.feed, parts) if result][:1] == ([found] if found else [])


@pytest.mark.parametrize("reply", [
    "x" * 300_000,                                     # one unit without an end
    "a.\n" * 100_000,                                  # many short units
    "".join(f"A distinct sentence {'x' * n} here!\n" for n in range(700)),  # many long ones, none repeated
])
def test_a_huge_reply_is_read_in_bounded_time(reply):
    """A wide bound: this catches quadratic work, it does not time speed (a real reply is
    at most about 10,000 characters; these are 30 times that)."""
    started = time.perf_counter()
    repeats = Repeats(STOP_REPEATS)
    for start in range(0, len(reply), 64):
        repeats.feed(reply[start:start + 64])
    assert time.perf_counter() - started < 5.0


@pytest.mark.parametrize("bad", [-1, True, 1.5, "8"])
def test_stop_repeats_is_checked_and_a_recording_made_before_it_never_cuts(bad):
    with pytest.raises(ValueError, match="stop_repeats must be an int >= 0"):
        LoopSettings(stop_repeats=bad)
    older = {key: value for key, value in LoopSettings().recorded().items() if key != "stop_repeats"}
    assert LoopSettings.from_recorded(older).stop_repeats == 0 and LoopSettings().stop_repeats == STOP_REPEATS
