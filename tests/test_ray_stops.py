"""evaluate.py --ray, stopped: Ctrl-C on the driver, and a model server that really dies.

Ctrl-C (SIGINT to the command line's process group, as a terminal sends it) while attempts wait
on a silent server: the command exits promptly, keeps the attempt that finished and counts no
other, says so, and leaves no task of the run on the cluster. A server stopped mid-run (its
listening socket closed, its open connections reset, as when its process dies): its work goes to
the other server, nothing is lost or counted twice, and no request waits out its read timeout.

Each runs on the two-node cluster of conftest.py's `ray_cluster`, one for this module.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

import evaluate
from runs.recording_file import load
from tests.processes import running_with
from tests.ray_parts import Repairs, openai_flags
from tests.terminal import interruptible

try:
    import ray
except ImportError:  # pragma: no cover - CI installs it from requirements-lock.txt
    ray = None
pytestmark = pytest.mark.skipif(ray is None and not os.environ.get("CI"), reason="Ray is not installed")
HERE = Path(__file__).resolve().parent.parent


def test_ctrl_c_on_the_cluster_keeps_what_finished_and_leaves_no_task_running(ray_cluster, tmp_path):
    """Six attempts, two at a time: the first is answered at once ("Done.") and finishes; every
    later request meets a server that says nothing (a long prompt being read). Ctrl-C then."""
    from testing.fake_openai import FakeOpenAI, Stall, text
    out, before = tmp_path / "out", _task_copies()
    with FakeOpenAI(text("Done."), *[[Stall(120)]] * 5) as server, interruptible():
        process = subprocess.Popen([sys.executable, "-B", str(HERE / "evaluate.py"), *openai_flags(server),
                                    "--attempts", "6", "--verify-finish", "0", "--ray", ray_cluster, "--out", str(out)],
                                   cwd=HERE, text=True, start_new_session=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ends = time.monotonic() + 120
        while len(server.requests) < 3 and process.poll() is None and time.monotonic() < ends:
            time.sleep(0.05)
        assert len(server.requests) == 3, process.communicate(timeout=30)  # one answered, two held
        assert len(running_with("ray::attempt_on_node")) == 2
        waiting = _task_copies() - before  # the two waiting attempts' folders, on the nodes (this machine)
        os.killpg(process.pid, signal.SIGINT)
        started = time.monotonic()
        printed, err = process.communicate(timeout=120)
        took = time.monotonic() - started
    assert process.returncode == 130 and took < 30, err  # wide: it catches a hang
    assert err.strip().splitlines()[-1].startswith("interrupted: finished attempts are kept")
    (kept,) = (out / "attempts").iterdir()  # whichever attempt met the answer
    assert load(kept)["stop"]["reason"] == "assistant_finished"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["attempts"] == 1 and summary["infra_failures"] == 0
    assert f"[  1/6] {kept.stem}" in printed and "[  2/6]" not in printed
    assert _no_attempt_task_left(ray_cluster)
    assert waiting and not any(folder.exists() for folder in waiting)  # each ended through its `finally`


def _task_copies():
    """The scratch folders of the attempts running as Ray tasks on this machine."""
    return set(Path(tempfile.gettempdir()).glob("coding-loop-ray-*"))


def _no_attempt_task_left(address, seconds=10):
    """True once no Ray worker runs an attempt and the cluster's every CPU is free again."""
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)
    ends = time.monotonic() + seconds
    while running_with("ray::attempt_on_node") or ray.available_resources().get("CPU") != 2:
        if time.monotonic() > ends:
            return False
        time.sleep(0.1)
    return True


def test_a_server_that_dies_mid_answer_loses_nothing_and_waits_for_nothing(ray_cluster, tmp_path, capsys):
    """Two servers, one request at a time on each: the second dies in the middle of its first
    answer (its port closed, its connections closed under their requests, as when its process is
    killed). That attempt runs again on the first server; every attempt is graded, repaired, none
    lost, none doubled, and no request waited for the adapter's read timeout (300 s)."""
    from testing.fake_openai import delta
    dying, test_over = [], threading.Event()

    def die_mid_answer(n):
        if n == 1:  # the answer begins, the server dies, and its thread writes nothing more
            return [delta(role="assistant", content=None), lambda: threading.Thread(target=dying[0].die).start(),
                    lambda: test_over.wait(600)]
    started = time.monotonic()
    with Repairs() as up, Repairs(die_mid_answer) as failing:
        dying.append(failing)
        try:
            code = evaluate.main([*openai_flags(up, failing), "--attempts", "4", "--parallel", "1",
                                  "--ray", ray_cluster, "--out", str(tmp_path / "out")])
        finally:
            test_over.set()
        took = time.monotonic() - started
    assert code == 0 and len(failing.requests) == 1  # the one it died answering; then it refused all
    assert took < 100  # wide: a request left waiting on the dead server would take 300 s
    assert capsys.readouterr().out.count(f"server {failing.url} failed") <= 1
    summary = json.loads((tmp_path / "out/summary.json").read_text())
    assert summary["infra_failures"] == 0 and summary["overall"] == {"attempts": 4, "repaired": 4, "pass@1": 1.0}
    assert sorted(p.name for p in (tmp_path / "out/attempts").iterdir()) == [f"path_rules-{k}.json" for k in range(1, 5)]
