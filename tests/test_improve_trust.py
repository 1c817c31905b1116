"""improve.py's numbers cannot lie: a resume keeps every recorded decision and its plan, a
finished improvement is left as it is, an iteration counts only its own slots, what is printed
is cleaned, and a replay re-derives every number improvement.json states (served here: no
pytest, so a doctored copy of the shared climb costs a fraction of a second)."""
import copy
import json
import shutil
from pathlib import Path

import pytest

import improve
from tests.helpers import IMPROVE_FLAGS as FLAGS
from tests.helpers import IMPROVE_HOLDOUT as HOLDOUT
from workspace import pytest_run


def interrupted_after(climbed, tmp_path, n, doctor=None):
    """A copy of the finished climb, its record cut back to what was kept when a run stopped
    after iteration n (every folder stays: a resume finds their attempts finished)."""
    out, record = climbed
    folder = tmp_path / "copy"
    shutil.copytree(out, folder)
    record = {**copy.deepcopy(record), "stopped": None, "final": None, "holdout": None}
    record["iterations"] = record["iterations"][:n]
    if doctor:
        doctor(record)
    (folder / "improvement.json").write_text(json.dumps(record))
    return folder


def files_of(folder):
    return {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in folder.rglob("*") if path.is_file()}


def test_running_a_finished_improvement_again_changes_nothing_on_disk(climbed, tmp_path, capsys):
    out, record = climbed
    shutil.copytree(out, tmp_path / "copy")
    before = files_of(tmp_path / "copy")
    assert improve.main([*FLAGS, "--out", str(tmp_path / "copy")]) == 0
    assert files_of(tmp_path / "copy") == before
    printed = capsys.readouterr().out
    assert "holds a finished improvement (stopped: target): nothing to run" in printed
    assert printed.count("\n| ") == 1 + len(record["iterations"]) and "stopped: target" in printed


def test_a_resume_with_another_split_is_refused_in_one_line(climbed, tmp_path, capsys):
    out, _ = climbed
    shutil.copytree(out, tmp_path / "copy")
    before = files_of(tmp_path / "copy")
    flags = [*FLAGS[:-4], "--holdout", "discount_percent", "--jobs", "2", "--out", str(tmp_path / "copy")]
    assert improve.main(flags) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {tmp_path / 'copy'} holds an improvement made with ")
    assert "--holdout refund_limit (here: discount_percent)" in err and "pass a new --out" in err
    assert files_of(tmp_path / "copy") == before


def test_an_iteration_counts_only_the_tasks_it_chose(climbed, tmp_path):
    """The held-out task's attempt lands in iteration 1's folder (as a resume with another split
    once left it there): it fits the slot's settings, yet it is neither counted nor evidence."""
    out, record = climbed
    folder = interrupted_after(climbed, tmp_path, 1)
    shutil.copy(folder / "holdout-start/attempts/refund_limit-1.json", folder / "iteration-1/attempts/")
    assert improve.main([*FLAGS, "--out", str(folder)]) == 0
    resumed = json.loads((folder / "improvement.json").read_text())
    assert resumed["iterations"][0]["train"] == {"attempts": 2, "repaired": 0, "pass@1": 0.0}
    assert not any(HOLDOUT in attempt_id for entry in resumed["iterations"] for change in entry["changes"]
                   for attempt_id in change["evidence"])
    assert resumed == record


def test_a_resume_prints_the_recorded_changes_cleaned(climbed, tmp_path, capsys):
    def doctor(record):
        record["iterations"][1]["changes"][0]["to"] = "run\x1b]0;owned\x07\u202e\x9b2J"
    folder = interrupted_after(climbed, tmp_path, 2, doctor)
    assert improve.main([*FLAGS, "--out", str(folder)]) == 0
    printed = capsys.readouterr().out
    assert "=== iteration 2: offered_tools " in printed and "\\x1b]0;owned\\x07\\u202e\\x9b2J" in printed
    assert not any(char in printed for char in "\x1b\x07\u202e\x9b")


def test_a_served_replay_runs_no_pytest_and_still_catches_a_doctored_attempt(climbed, tmp_path, capsys, monkeypatch):
    out, _ = climbed
    doctored = tmp_path / "doctored"
    shutil.copytree(out, doctored)
    attempt = sorted((doctored / "iteration-1/attempts").glob("*.json"))[0]
    recording = json.loads(attempt.read_text())
    for stopped in (recording["stop"], recording["events"][-1]):  # claimed to stop another way
        stopped["reason"] = "deadline" if stopped["reason"] != "deadline" else "max_turns"
    attempt.write_text(json.dumps(recording))
    monkeypatch.setattr(pytest_run, "run_bounded", lambda *a, **k: pytest.fail("a served replay ran pytest"))
    assert improve.main(["--replay", str(doctored), "--served"]) == 1
    assert f"iteration 1: {attempt.name}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        improve.main(["--served", "--scripted"])
    assert "--served goes with --replay DIR" in capsys.readouterr().err


def record_says(change):
    def doctor(folder):
        record = json.loads((folder / "improvement.json").read_text())
        change(record)
        (folder / "improvement.json").write_text(json.dumps(record))
    return doctor


DOCTORED = [  # (how the copy of the climb is doctored, what the served replay must name)
    (record_says(lambda r: r["iterations"][1]["train"].update(repaired=2, **{"pass@1": 1.0})),
     "iteration 2: training rates 1/2 repaired (pass@1 0.5) here, 2/2 repaired (pass@1 1.0) recorded"),
    (record_says(lambda r: r["holdout"]["final"].update(repaired=0, **{"pass@1": 0.0})),
     "held-out final: held-out rates 1/1 repaired (pass@1 1.0) here, 0/1 repaired (pass@1 0.0) recorded"),
    (record_says(lambda r: r["final"].update(max_turns=20)), "start: the final settings are not the last iteration's"),
    (record_says(lambda r: r.update(stopped="no_change")), "iteration 3: it stops `target` here, `no_change` recorded"),
    (lambda folder: (folder / "iteration-3/attempts/path_rules-1.json").unlink(),
     "iteration 3: path_rules-1.json is missing: the plan counts it"),
    (lambda folder: shutil.copy(folder / "holdout-start/attempts/refund_limit-1.json", folder / "holdout-final/attempts"),
     "held-out final: refund_limit-1.json was made with other settings"),
]


@pytest.mark.parametrize("doctor, named", DOCTORED, ids=[named.split(":")[1].strip()[:40] for _, named in DOCTORED])
def test_a_replay_re_derives_every_number_the_record_states(climbed, tmp_path, capsys, doctor, named):
    out, _ = climbed
    shutil.copytree(out, tmp_path / "doctored")
    doctor(tmp_path / "doctored")
    assert improve.main(["--replay", str(tmp_path / "doctored"), "--served"]) == 1
    assert named in capsys.readouterr().out


def test_an_improvement_an_older_improve_py_wrote_still_replays(capsys):
    """measurements/improve-weak predates the recorded plan: its tasks and attempts are read from
    its folders, and the replay says what it cannot check."""
    assert improve.main(["--replay", str(Path(__file__).resolve().parent.parent / "measurements/improve-weak"),
                         "--served"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("no plan recorded (an older improve.py)") and "every iteration replayed as recorded" in printed
