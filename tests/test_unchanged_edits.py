"""A model that writes its code back unchanged: a stop of its own (`unchanged_edits`), counted
apart from malformed turns in the loop, evaluate's summary and report, and the improver's
evidence; and a recording made before that policy still replays under the policy it was made
under (LoopSettings.from_recorded's one upgrade step)."""
import json
from pathlib import Path

import pytest

from agent_loop import LoopSettings
from evaluation.grades import summary_of
from evaluation.report import render_report
from outer_loop import prompt_rewrite, traces
from replay import replay
from runs.recording import loop_settings
from runs.recording_file import load
from testing.scripted import ScriptedChat, call, done, text
from tests.helpers import FIX, of_type, results, run

HERE = Path(__file__).resolve().parent.parent  # the project root
# Ended format_errors after writing the file back unchanged three times, before the policy existed.
LIVE = HERE / "recordings/live_qwen15_levers_path_rules_seed9.json"


def unchanged(workspace):
    """What the real 1.5B model answered most, shown the failure and the file: the file back."""
    return [text(f"Here's the modified code for `path_rules.py`:\n\n```python\n"
                 f"{(workspace / 'path_rules.py').read_text()}```"), done()]


def kinds(events):
    return [e["kind"] for e in of_type(events, "nudge")]


def test_three_unchanged_write_backs_stop_with_their_own_reason(tools, workspace):
    before = (workspace / "path_rules.py").read_bytes()
    events = run(ScriptedChat(*[unchanged(workspace)] * 3), tools, text_edits="run")
    assert events[-1] == {"type": "stopped", "turn": 3, "reason": "unchanged_edits"}
    assert kinds(events) == ["unchanged_edit"] * 2  # no calls_refused: not malformed
    assert all("no-op" in result["error"] for result in results(events))
    assert (workspace / "path_rules.py").read_bytes() == before


def test_under_the_policy_before_it_they_are_malformed_as_recorded(tools, workspace):
    events = run(ScriptedChat(*[unchanged(workspace)] * 3), tools, text_edits="run", unchanged_edits="malformed")
    assert events[-1]["reason"] == "format_errors" and kinds(events) == ["calls_refused"] * 2


def test_malformed_and_unchanged_turns_do_not_reset_each_other(tools, workspace):
    """Each kind keeps its own count; an empty turn between two write-backs is no step forward."""
    chat = ScriptedChat(unchanged(workspace), [done()], unchanged(workspace), [done()], unchanged(workspace))
    events = run(chat, tools, text_edits="run")
    assert kinds(events) == ["unchanged_edit", "empty_turn", "unchanged_edit", "empty_turn"]
    assert events[-1] == {"type": "stopped", "turn": 5, "reason": "unchanged_edits"}


def test_a_turn_in_which_something_ran_resets_the_count(tools, workspace):
    chat = ScriptedChat(unchanged(workspace), unchanged(workspace), [done(tool_calls=[call("read_file", path="path_rules.py")])],
                        unchanged(workspace), unchanged(workspace), [done(tool_calls=[FIX])], [text("Fixed."), done()])
    events = run(chat, tools, text_edits="run")
    assert kinds(events) == ["unchanged_edit"] * 4 and events[-1]["reason"] == "assistant_finished"


def test_the_setting_is_checked_recorded_and_upgraded_for_older_recordings():
    assert LoopSettings().unchanged_edits == "apart" and LoopSettings().recorded()["unchanged_edits"] == "apart"
    with pytest.raises(ValueError, match="unchanged_edits must be 'apart' or 'malformed'"):
        LoopSettings(unchanged_edits="maybe")
    older = {key: value for key, value in LoopSettings().recorded().items() if key != "unchanged_edits"}
    assert LoopSettings.from_recorded(older).unchanged_edits == "malformed"  # how it ran then
    assert LoopSettings.from_recorded(LoopSettings().recorded()) == LoopSettings()
    assert "unchanged_edits" not in load(LIVE)["settings"] and loop_settings(load(LIVE)).unchanged_edits == "malformed"


def test_a_live_recording_made_before_the_policy_replays_as_recorded(tmp_path):
    """It stopped format_errors after three unchanged write-backs. Replayed under today's policy it
    would not even nudge the same way, so the recording's own settings decide: never a special case
    per file. The shipped file is read, never changed: the copy here says it was made under today's."""
    assert replay(LIVE, served=True)["differences"] == []
    today = {**json.loads(LIVE.read_text()), "source": "scripted"}
    today["settings"] = {**today["settings"], "unchanged_edits": "apart"}
    (tmp_path / "today.json").write_text(json.dumps(today))
    differences = replay(tmp_path / "today.json", served=True)["differences"]
    assert any("'unchanged_edit' here, 'calls_refused' in the recording" in d for d in differences), differences


def attempt(events, k):
    return {"attempt_id": f"path_rules-{k}", "task_name": "path_rules", "verdict": "not repaired", "events": events,
            "stop": events[-1], "seconds": 1.0, "claim": {"text": "", "claims_success": False, "contradicted": False},
            "grades": {"verdict": "not repaired"}}


def test_summary_report_and_improver_evidence_count_them_apart(tools, workspace):
    stopped = run(ScriptedChat(*[unchanged(workspace)] * 3), tools, text_edits="run")
    malformed = run(ScriptedChat([done()], [done()], [done()]), tools)
    attempts = [attempt(stopped, 1), attempt(malformed, 2)]
    summary = summary_of(attempts, 2, {"name": "m", "digest": None}, "abc", False)
    assert summary["stop_reasons"] == {"unchanged_edits": 1, "format_errors": 1}
    assert summary["well_formed_turns"] == 0.5  # of 6 turns, the 3 empty ones are malformed
    assert summary["unchanged_edit_turns"] == 0.5  # the 3 write-backs, well-formed but no step
    page = render_report(summary, attempts)
    assert "<th>turns that wrote code back unchanged</th><td>50%</td>" in page and ">unchanged<" in page
    assert [traces.wrote_code_back_unchanged(a) for a in attempts] == [True, False]
    assert "wrote its code back unchanged: 1" in prompt_rewrite.digest(attempts)
