"""Every shipped recording replays to its recorded outcome, and replay catches drift."""
import json
import shutil
from pathlib import Path

import pytest

import agent_loop
import recording
from recording import FORMAT, load, sample_hashes
from replay import MACHINE_FIELDS, ReplayModel, RequestDrift, main, outcome, replay

RECORDINGS = sorted((Path(__file__).parent / "recordings").glob("*.json"))
BEHAVIOURS = {"fix_in_one_edit": "assistant_finished", "max_turns_one": "max_turns",
              "unfinished_stream": "incomplete_model_turn", "length_stop": "incomplete_model_turn",
              "unknown_tool": "assistant_finished", "claims_pass_tests_fail": "assistant_finished",
              "syntax_error_recovery": "assistant_finished"}


def without_machine_fields(events):
    """Events with the fields that describe this machine (is there a sandbox?) left out."""
    cleaned = json.loads(json.dumps(events))
    for event in cleaned:
        for field in MACHINE_FIELDS:
            event.get("result", {}).pop(field, None)
    return cleaned


def test_each_required_behaviour_has_a_recording():
    stops = {path.stem: load(path)["stop"]["reason"] for path in RECORDINGS}
    assert {name: stops.get(name) for name in BEHAVIOURS} == BEHAVIOURS
    assert load(Path(__file__).parent / "recordings/fix_in_one_edit.json")["verdict"] == "repaired"
    assert load(Path(__file__).parent / "recordings/claims_pass_tests_fail.json")["verdict"] == "not repaired"


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_recording_replays_to_its_recorded_outcome(path):
    result = replay(path)
    recorded = result["recording"]
    assert outcome(result["events"], result["final_tests"]) == outcome(recorded["events"], recorded["final_tests"])
    assert without_machine_fields(result["events"]) == without_machine_fields(recorded["events"])


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_recording_is_labelled_hashed_and_in_message_order(path):
    rec = load(path)
    assert rec["format"] == FORMAT and rec["source"] in ("live", "scripted")
    if rec["source"] == "scripted":
        assert rec["about"].strip() and "\n" not in rec["about"]
    assert rec["sample"] == sample_hashes() and rec["tests_unchanged"] is True
    assert rec["stop"] == rec["events"][-1] and rec["stop"]["type"] == "stopped"
    assert len(rec["timings"]["model_s"]) == len(rec["turns"])
    results = [e for e in rec["events"] if e["type"] == "tool_result"]
    assert len(rec["timings"]["tool_s"]) == len(results)
    requests = [turn["request"]["messages"] for turn in rec["turns"]]
    assert requests[0] == [{"role": "system", "content": rec["system"]}, {"role": "user", "content": rec["task"]}]
    for number in range(1, len(requests)):
        previous, current = requests[number - 1], requests[number]
        assert current[:len(previous)] == previous, "a request keeps everything sent before"
        assistant, *tool_messages = current[len(previous):]
        said = "".join(e["text"] for e in rec["events"] if e["type"] == "text_delta" and e["turn"] == number)
        assert assistant["role"] == "assistant" and assistant["content"] == said
        assert tool_messages == [{"role": "tool", "tool_name": e["name"], "content": json.dumps(e["result"])}
                                 for e in results if e["turn"] == number]

def test_replay_model_names_the_turn_message_and_field_that_drifted():
    rec = load(RECORDINGS[0])
    model = ReplayModel(rec)
    messages = json.loads(json.dumps(rec["turns"][0]["request"]["messages"]))
    messages[1]["content"] = "a different task"
    with pytest.raises(RequestDrift, match=r"turn 1, message 1: field 'content'"):
        model(messages, [])


def test_replay_model_compares_tool_results_field_by_field_but_not_the_machines_sandbox():
    rec = load(Path(__file__).parent / "recordings/fix_in_one_edit.json")
    messages = json.loads(json.dumps(rec["turns"][2]["request"]["messages"]))
    tool = next(i for i, m in enumerate(messages) if m["role"] == "tool" and m["tool_name"] == "run_tests")
    content = json.loads(messages[tool]["content"])
    content.update(sandbox="none", sandbox_warning="bubblewrap is not installed")
    messages[tool]["content"] = json.dumps(content)
    model = ReplayModel(rec)
    model.served = 2
    list(model(messages, []))  # the sandbox fields are this machine's, not the run's
    content["exit_code"] = 0
    messages[tool]["content"] = json.dumps(content)
    model.served = 2
    with pytest.raises(RequestDrift, match=rf"turn 3, message {tool}: field 'content.exit_code'"):
        model(messages, [])


def test_a_request_beyond_the_recording_raises():
    model = ReplayModel(Path(__file__).parent / "recordings/max_turns_one.json", check_requests=False)
    list(model([], []))
    with pytest.raises(RequestDrift, match="beyond the recording's 1 turns"):
        model([], [])


def test_a_changed_system_prompt_is_caught_as_drift_in_a_replay(monkeypatch):
    monkeypatch.setattr(agent_loop, "SYSTEM", agent_loop.SYSTEM + " Be brief.")
    result = replay(Path(__file__).parent / "recordings/fix_in_one_edit.json")
    stop = result["events"][-1]
    assert stop["reason"] == "model_error"
    assert "RequestDrift: turn 1, message 0: field 'content'" in stop["error"]


def test_replay_refuses_a_sample_that_differs_from_the_recordings(monkeypatch, tmp_path):
    changed = Path(shutil.copytree(recording.SAMPLE, tmp_path / "sample"))
    (changed / "path_rules.py").write_text((changed / "path_rules.py").read_text() + "\n# edited\n")
    monkeypatch.setattr(recording, "SAMPLE", changed)
    with pytest.raises(ValueError, match="sample's files differ"):
        replay(RECORDINGS[0])


def test_cli_exits_nonzero_when_a_replay_differs_from_its_recording(tmp_path, capsys):
    doctored = json.loads((Path(__file__).parent / "recordings/max_turns_one.json").read_text())
    doctored["final_tests"]["exit_code"] = 0  # a test fixture, never shipped
    path = tmp_path / "doctored.json"
    path.write_text(json.dumps(doctored))
    assert main([str(path)]) == 1
    assert "DIFFERS from the recording" in capsys.readouterr().out
    assert main([str(Path(__file__).parent / "recordings/max_turns_one.json")]) == 0


@pytest.mark.parametrize("change, message", [({"format": "other/2"}, "format"), ({"source": "live-ish"}, "source")])
def test_load_refuses_other_formats_and_dishonest_sources(tmp_path, change, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**load(RECORDINGS[0]), **change}))
    with pytest.raises(ValueError, match=message):
        load(path)
