"""Evaluations that never mislead: resumed slots must fit, lost attempts are never a success,
one folder is one run, and stopping leaves nothing running and nothing behind."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import evaluate
from agent_loop import LoopSettings
from evaluation.folder import EvaluationFolder
from evaluation.workers import run_in_workers
from runs.recording_file import load, save
from tests.helpers import EVALUATE_FLAGS
from tests.processes import killed_in_the_second_item
from tests.terminal import interruptible

HERE = Path(__file__).resolve().parent.parent  # the project root


def run(out, *flags):
    return evaluate.main(["--out", str(out), *flags])


def summary(out):
    return json.loads((out / "summary.json").read_text())


def resumable(evaluated, tmp_path):
    """A copy of the shared evaluation's folder (EVALUATE_FLAGS, all four attempts finished)."""
    return shutil.copytree(evaluated[0], tmp_path / "out")


def test_a_resumed_folder_counts_only_attempts_that_fit_their_slot(evaluated, tmp_path, capsys):
    out = resumable(evaluated, tmp_path)
    assert summary(out)["tasks"]["path_rules"]["pass@1"] == 0.5
    attempts = out / "attempts"
    # Someone copies the repair into the other slot; damages the grades of a second file (valid
    # JSON, a recording, but its grades contradict its verdict), breaks a third and cuts the stop
    # off a fourth: none of them may count, and each slot runs again.
    shutil.copy(attempts / "path_rules-1.json", attempts / "path_rules-2.json")
    damaged = load(attempts / "path_rules-1.json")
    damaged["grades"]["verdict"] = "not repaired"
    save(attempts / "path_rules-1.json", damaged)
    (attempts / "pagination_last_page-2.json").write_text("{not json")
    stopless = json.loads((attempts / "pagination_last_page-1.json").read_text())  # a recording still, no `stop`
    del stopless["stop"]
    (attempts / "pagination_last_page-1.json").write_text(json.dumps(stopless))
    capsys.readouterr()
    assert run(out, *EVALUATE_FLAGS) == 0
    printed = capsys.readouterr().out
    assert "path_rules-2.json belongs to another slot (path_rules-1): running it again" in printed
    assert "path_rules-1.json is damaged (its grades" in printed
    assert "pagination_last_page-2.json cannot be read" in printed
    assert ("pagination_last_page-1.json is damaged (its stop: missing, or not what an attempt holds): "
            "running it again") in printed
    assert "4 to run" in printed and summary(out)["overall"]["repaired"] == 2
    assert summary(out)["tasks"]["path_rules"]["pass@1"] == 0.5  # the truth, not 1.00
    assert load(attempts / "path_rules-2.json")["attempt_id"] == "path_rules-2"
    assert "stop" in load(attempts / "pagination_last_page-1.json")


def test_an_attempt_made_with_other_settings_does_not_count(evaluated, tmp_path, capsys):
    out = resumable(evaluated, tmp_path)
    attempt = load(out / "attempts/path_rules-2.json")
    attempt["settings"]["verify_finish"] = 2
    save(out / "attempts/path_rules-2.json", attempt)
    assert run(out, *EVALUATE_FLAGS) == 0
    assert "path_rules-2.json was made with other settings: running it again" in capsys.readouterr().out
    assert load(out / "attempts/path_rules-2.json")["settings"]["verify_finish"] == 0


def test_a_resume_with_fewer_tasks_or_attempts_adds_and_never_shrinks(evaluated, tmp_path, capsys):
    out = resumable(evaluated, tmp_path)
    assert run(out, "--scripted", "--tasks", "pagination_last_page", "--attempts", "1") == 0
    assert "0 to run" in capsys.readouterr().out
    assert summary(out)["overall"]["attempts"] == 4
    assert set(summary(out)["tasks"]) == {"path_rules", "pagination_last_page"}
    assert (out / "report.html").read_text().count('class="cell') == 4


def test_one_folder_takes_one_run_at_a_time(evaluated, tmp_path, capsys):
    out = resumable(evaluated, tmp_path)
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    holder = EvaluationFolder(out)
    holder.lock()
    try:
        assert run(out, *EVALUATE_FLAGS) == 1
        err = capsys.readouterr().err
        assert err == f"error: another evaluation is writing to {out}; wait for it to finish, or pass another --out\n"
        assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before
    finally:
        holder.unlock()
    assert run(out, *EVALUATE_FLAGS) == 0
    assert "0 to run" in capsys.readouterr().out


def test_the_folder_compares_typed_settings(tmp_path):
    folder = EvaluationFolder(tmp_path)
    folder.claim(LoopSettings(max_turns=3), {"api": "scripted"})
    folder.claim(LoopSettings.from_recorded(LoopSettings(max_turns=3).recorded()), {"api": "scripted"})
    for other in (LoopSettings(max_turns=4), LoopSettings(max_turns=3, context="preload")):
        try:
            folder.claim(other, {"api": "scripted"})
        except Exception as error:  # noqa: BLE001
            assert "other settings" in str(error)
        else:
            raise AssertionError(f"{other} was accepted")


def test_a_worker_that_dies_loses_only_its_own_attempt():
    outcomes = []
    run_in_workers(2, killed_in_the_second_item, [1, 2, 3, 4, 5, 6], lambda item, result, error: outcomes.append(
        (item, result, str(error) if error else None)))
    assert sorted(outcomes) == [(1, 1, None), (2, None, "the worker process was killed by SIGKILL during this attempt"),
                                (3, 3, None), (4, 4, None), (5, 5, None), (6, 6, None)]


def test_an_evaluation_whose_worker_is_killed_loses_that_attempt_alone(tmp_path):
    """Two attempts, one worker each: the worker of the first is killed while it works."""
    out = tmp_path / "out"
    two_workers = ["--scripted", "--tasks", "path_rules", "--attempts", "2", "--jobs", "2"]
    process = subprocess.Popen([sys.executable, "-B", str(HERE / "evaluate.py"), *two_workers, "--out", str(out)],
                               cwd=HERE, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ends, workers = time.monotonic() + 60, []
    while len(workers) < 2 and process.poll() is None and time.monotonic() < ends:
        time.sleep(0.05)
        workers = [pid for pid in _children(process.pid) if _is_worker(pid)]
    time.sleep(0.2)  # each worker is handed its attempt as it starts
    os.kill(workers[0], signal.SIGKILL)  # as the out-of-memory killer would
    _, err = process.communicate(timeout=120)
    assert process.returncode == 1 and err.startswith("error: 1 attempt(s) were lost"), err
    assert summary(out)["infra_failures"] == 1 and summary(out)["overall"]["attempts"] == 1


@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_a_stop_sends_no_new_request_leaves_nothing_running_and_keeps_what_finished(fake_openai, tmp_path, stop):
    """Two workers: one attempt finishes, then both wait on a request the server holds open.
    Ctrl-C (to the whole process group, as a terminal sends it) or SIGTERM (to the main process
    only, which must stop its workers itself): no request after it, every worker gone, no task
    copy left, the finished attempt kept."""
    from testing.fake_openai import KEEP_ALIVE, Forever
    from testing.fake_openai import text as sse_text
    fake_openai.play(sse_text("Done."), *[[Forever(KEEP_ALIVE, at_most=60)]] * 6)
    scratch, out = tmp_path / "tmp", tmp_path / "out"
    scratch.mkdir()
    with interruptible():
        process = subprocess.Popen([sys.executable, "-B", str(HERE / "evaluate.py"), "--api", "openai", "--base-url",
                                    fake_openai.url, "--model", "qwen2.5-coder-1.5b", "--tasks", "path_rules",
                                    "--attempts", "6", "--verify-finish", "0", "--jobs", "2", "--out", str(out)],
                                   cwd=HERE, text=True, start_new_session=True,
                                   env={**os.environ, "TMPDIR": str(scratch)},
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ends = time.monotonic() + 60
    while len(fake_openai.requests) < 3 and process.poll() is None and time.monotonic() < ends:
        time.sleep(0.05)
    assert len(fake_openai.requests) == 3, process.communicate(timeout=30)  # one answered, two held open
    workers = _children(process.pid)
    assert workers, "no worker process was found"
    if stop == "ctrl-c":
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    _, err = process.communicate(timeout=30)
    assert len(fake_openai.requests) == 3, "a model request came after the signal"
    assert process.returncode == 130 and time.monotonic() - started < 10  # wide: it catches a hang
    assert err.strip().splitlines()[-1].startswith("interrupted: finished attempts are kept")
    ends = time.monotonic() + 10  # the workers are gone; multiprocessing's resource tracker follows its parent
    while any(_alive(pid) for pid in workers) and time.monotonic() < ends:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers)
    assert [p.name for p in scratch.iterdir() if p.name.startswith("coding-loop-")] == []
    assert len(list((out / "attempts").iterdir())) == 1


def _children(pid):
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and Path(f"/proc/{entry}/stat").read_text().split(") ")[1].split()[1] == str(pid):
                found.append(int(entry))
        except (OSError, IndexError):
            continue
    return found


def _is_worker(pid):
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_reply_too_deep_to_decode_is_the_models_failure_not_a_lost_attempt(fake_openai, tmp_path, capsys):
    """Arguments nested 1,200 deep: whatever the adapter makes of them, the same reply would
    come again on every retry, so the attempt is graded (not repaired), never an infra failure."""
    from testing.fake_openai import llama_cpp_call
    deep = '{"path": ' + "[" * 1200 + "]" * 1200 + "}"
    fake_openai.play(llama_cpp_call("read_file", deep), llama_cpp_call("read_file", deep),
                     llama_cpp_call("read_file", deep), llama_cpp_call("read_file", deep))
    code = run(tmp_path / "out", "--api", "openai", "--base-url", fake_openai.url, "--model", "qwen2.5-coder-1.5b",
               "--tasks", "path_rules", "--max-turns", "3")
    assert code == 0, capsys.readouterr()
    attempt = load(tmp_path / "out/attempts/path_rules-1.json")
    assert "infra_failure" not in attempt and attempt["grades"]["verdict"] == "not repaired"
    assert summary(tmp_path / "out")["infra_failures"] == 0


def test_each_attempt_is_sent_its_own_seed(fake_openai, tmp_path):
    """k attempts with one seed would be near-repeats of one answer, and pass@k would count it
    k times: attempt k is sent the seed plus k - 1, and records it."""
    from testing.fake_openai import text as sse_text
    fake_openai.play(sse_text("Done."), sse_text("Done."))
    code = run(tmp_path / "out", "--api", "openai", "--base-url", fake_openai.url, "--model", "qwen2.5-coder-1.5b",
               "--tasks", "path_rules", "--attempts", "2", "--seed", "40")
    assert code == 0
    assert sorted(request["seed"] for request in fake_openai.requests) == [40, 41]
    seeds = [load(tmp_path / f"out/attempts/path_rules-{k}.json")["settings"]["options"]["seed"] for k in (1, 2)]
    assert seeds == [40, 41]
