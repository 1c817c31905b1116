"""What a replay compares beyond the events: the verdict, the final tests' counts, a recorded
model error, and the closing table that names every recording that differs."""
import json
import shutil
from pathlib import Path

import pytest

from replay import ReplayModel, main, replay
from runs.recording_file import load

HERE = Path(__file__).resolve().parent.parent  # the project root
RECORDINGS = HERE / "recordings"


def changed(tmp_path, name, change, stem="changed"):
    """A copy of a shipped recording changed by `change(recording)`: a fixture, never shipped."""
    recording = json.loads((RECORDINGS / f"{name}.json").read_text())
    change(recording)
    path = tmp_path / f"{stem}.json"
    path.write_text(json.dumps(recording))
    return path


@pytest.mark.parametrize("served", [True, False])
def test_a_hand_edited_verdict_differs_in_both_modes(tmp_path, served):
    path = changed(tmp_path, "max_turns_one", lambda r: r.update(verdict="repaired"))
    assert replay(path, served=served)["differences"] == [
        "verdict: 'repaired' in the recording, 'not repaired' here"]


@pytest.mark.parametrize("served", [True, False])
def test_a_hand_edited_verdict_fails_the_cli_in_both_modes(tmp_path, capsys, served):
    path = changed(tmp_path, "max_turns_one", lambda r: r.update(verdict="repaired"))
    assert main(["--served", str(path)] if served else [str(path)]) == 1
    assert "0 of 1 recordings replayed as recorded" in capsys.readouterr().out


def test_a_real_replay_compares_every_count_of_the_final_tests(tmp_path):
    path = changed(tmp_path, "max_turns_one", lambda r: r["final_tests"].update(passed=4, failed=0))
    assert replay(path)["differences"] == [
        "final tests (the verdict's run): passed 4 in the recording, 3 here",
        "final tests (the verdict's run): failed 0 in the recording, 1 here"]


def test_a_served_replay_recomputes_the_verdict_from_the_recorded_final_tests(tmp_path):
    # Counts that say every test passed, beside a verdict that says otherwise: one of them was edited.
    path = changed(tmp_path, "max_turns_one", lambda r: r["final_tests"].update(exit_code=0, passed=4, failed=0))
    result = replay(path, served=True)
    assert result["verdict"] == "repaired"
    assert result["differences"] == ["verdict: 'not repaired' in the recording, 'repaired' here"]


def test_a_served_replay_prints_the_verdict_as_recorded_never_as_a_pytest_run(capsys):
    assert main(["--served", str(RECORDINGS / "claims_pass_tests_fail.json")]) == 0
    verdicts = [line for line in capsys.readouterr().out.splitlines() if line.startswith("verdict:")]
    assert verdicts == ["verdict: not repaired (as recorded; no pytest ran in a served replay)"]


@pytest.mark.parametrize("served", [True, False])
def test_a_recording_that_stopped_with_model_error_replays_in_both_modes(served):
    path = RECORDINGS / "model_error.json"
    recorded = load(path)["stop"]
    assert recorded["reason"] == "model_error" and "RemoteProtocolError" in recorded["error"]
    result = replay(path, served=served)
    assert result["differences"] == [] and result["events"][-1] == recorded


@pytest.mark.parametrize("error, worded", [
    ("RemoteProtocolError: peer closed connection", "RemoteProtocolError: peer closed connection"),
    ("Odd: ", "Odd: "), (": no name", ": no name"),
    # No class can be named so (a hand-edited recording): the whole text, and the replay differs.
    ("no colon at all", "ReplayedModelError: no colon at all"),
    ("Null\x00Name: message", "ReplayedModelError: Null\x00Name: message"),
    ("\ud800: a lone surrogate", "ReplayedModelError: \ud800: a lone surrogate")])
def test_the_replayed_model_error_reads_exactly_as_recorded_or_fails_plainly(error, worded):
    model = ReplayModel({"turns": [{"request": {"messages": []}, "chunks": [], "error": error}], "tools": []},
                        check_requests=False)
    with pytest.raises(Exception) as raised:
        list(model([], []))
    assert f"{type(raised.value).__name__}: {raised.value}" == worded  # as the loop words a model error


def test_the_cli_ends_with_a_table_naming_every_recording_that_differs(tmp_path, capsys):
    edited = changed(tmp_path, "max_turns_one", lambda r: r.update(verdict="repaired"), "edited_verdict")
    broken = tmp_path / "broken.json"
    broken.write_text("[]")
    same = RECORDINGS / "length_stop.json"
    assert main(["--served", str(same), str(edited), str(broken)]) == 1
    lines = capsys.readouterr().out.rstrip("\n").splitlines()
    header, rule, *rows, count = lines[-6:]
    assert header.split() == ["recording", "source", "stop", "verdict", "same?"] and set(rule) <= {"-", " "}
    assert rows[0].split() == ["length_stop.json", "scripted", "incomplete_model_turn", "not", "repaired", "yes"]
    assert rows[1].split() == ["edited_verdict.json", "scripted", "max_turns", "repaired", "->", "not",
                               "repaired", "NO"]
    assert rows[2].split()[0] == "broken.json" and rows[2].split()[-1] == "ERROR"
    assert count == "1 of 3 recordings replayed as recorded"
    # Plain columns: every row starts each column at the header's place.
    starts = [header.index(word) for word in ("source", "stop", "verdict", "same?")]
    assert all(row[start - 1] == " " for row in rows for start in starts)


def test_the_table_names_recordings_by_path_when_two_share_a_file_name(tmp_path, capsys):
    # An evaluation names its attempts task-k.json in every folder: bare names would be ambiguous.
    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        folder.mkdir()
        shutil.copy(RECORDINGS / "length_stop.json", folder / "length_stop.json")
    alone = RECORDINGS / "max_turns_one.json"
    assert main(["--served", str(first / "length_stop.json"), str(second / "length_stop.json"), str(alone)]) == 0
    rows = capsys.readouterr().out.rstrip("\n").splitlines()[-4:-1]
    assert [row.split()[0] for row in rows] == ["a/length_stop.json", "b/length_stop.json", "max_turns_one.json"]
