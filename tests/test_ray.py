"""evaluate.py --ray: every attempt a Ray task on a real cluster (ray.cluster_utils.Cluster: two
nodes of one CPU each, on this machine; the second has no bubblewrap on its PATH, as a machine
without the sandbox). What is checked: the same grades as the local pool, attempts on both nodes,
each recording its node and its sandbox; --require-sandbox sends the sandbox-less node nothing; a
worker killed mid-attempt and a model server that dies mid-search lose nothing and count nothing;
the servers' slots are counted on the cluster; and without --ray, Ray is never imported.

One cluster for the whole module (conftest.py's `ray_cluster`; starting one costs seconds).
Without Ray installed these skip, except in CI (CI=true), where Ray comes from
requirements-lock.txt and they must run. Stops (Ctrl-C, a server killed): tests/test_ray_stops.py.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import evaluate
from runs.recording_file import load
from tests.helpers import EVALUATE_FLAGS
from tests.processes import running_with
from tests.ray_parts import Repairs, openai_flags

try:
    import ray
except ImportError:  # pragma: no cover - CI installs it from requirements-lock.txt
    ray = None
pytestmark = pytest.mark.skipif(ray is None and not os.environ.get("CI"), reason="Ray is not installed")
HERE = Path(__file__).resolve().parent.parent


def nodes_of(out):
    return {a["attempt_id"]: a["node"]["id"] for a in map(load, (out / "attempts").glob("*.json"))}


def graded(out):
    return {p.stem: (load(p)["verdict"], load(p)["grades"]) for p in sorted((out / "attempts").glob("*.json"))}


def test_a_scripted_evaluation_on_the_cluster_grades_as_the_local_pool_on_both_nodes(ray_cluster, evaluated, tmp_path,
                                                                                     capsys):
    local, _ = evaluated  # the local pool's run of the same flags (conftest.py)
    out = tmp_path / "out"
    assert evaluate.main([*EVALUATE_FLAGS[:-2], "--jobs", "2", "--ray", ray_cluster, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert graded(out) == graded(local)
    assert json.loads((out / "summary.json").read_text())["overall"] == json.loads(
        (local / "summary.json").read_text())["overall"]
    assert len(set(nodes_of(out).values())) == 2  # both nodes ran attempts
    assert printed.count("has no sandbox") == 1  # the bare node, named once, before any work
    for attempt in map(load, (out / "attempts").glob("*.json")):  # each node's own sandbox, as today
        assert attempt["final_tests"]["sandbox"] in ("bubblewrap", "none")
    assert {load(p)["final_tests"]["sandbox"] for p in (out / "attempts").glob("*.json")} == {"bubblewrap", "none"}
    # the same --out again: resumed, nothing redone
    assert evaluate.main([*EVALUATE_FLAGS[:-2], "--ray", ray_cluster, "--out", str(out)]) == 0
    assert "4 already finished" in capsys.readouterr().out


def test_with_require_sandbox_the_node_without_one_gets_no_work(ray_cluster, tmp_path, capsys):
    out = tmp_path / "out"
    flags = ["--scripted", "--tasks", "path_rules", "--attempts", "2", "--jobs", "2"]
    assert evaluate.main([*flags, "--ray", ray_cluster, "--require-sandbox", "--out", str(out)]) == 0
    assert "it is sent no work (--require-sandbox)" in capsys.readouterr().out
    attempts = [load(p) for p in (out / "attempts").glob("*.json")]
    assert len(attempts) == 2 and {a["final_tests"]["sandbox"] for a in attempts} == {"bubblewrap"}
    assert len({a["node"]["id"] for a in attempts}) == 1


def test_a_worker_killed_mid_attempt_loses_only_that_try_and_its_slot(ray_cluster, tmp_path, capsys):
    """The first request finds its attempt's Ray worker killed (SIGKILL, as the out-of-memory
    killer would): Ray runs the attempt again, its slot on the one-slot server is freed, and both
    attempts are graded, repaired, none lost."""
    killed = []

    def kill_the_first(n):
        if n == 1:
            (pid,) = running_with("ray::attempt_on_node")  # one attempt at a time (--jobs 1)
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    with Repairs(kill_the_first) as server:
        code = evaluate.main([*openai_flags(server), "--attempts", "2", "--jobs", "1", "--parallel", "1",
                              "--ray", ray_cluster, "--out", str(tmp_path / "out")])
    assert killed and code == 0
    summary = json.loads((tmp_path / "out/summary.json").read_text())
    assert summary["infra_failures"] == 0 and summary["overall"] == {"attempts": 2, "repaired": 2, "pass@1": 1.0}


def test_a_search_over_two_servers_one_failing_mid_run_loses_nothing(ray_cluster, tmp_path, capsys):
    """Two servers, two candidates an attempt, one request at a time on each: the second server
    answers once, then only 503s (it went down behind its proxy). Its lost runs go to the first,
    it is named once at most, and every attempt is graded, repaired, none lost, none doubled."""
    from testing.fake_openai import HttpError
    with Repairs() as up, Repairs(lambda n: HttpError(503, "server is down") if n > 1 else None) as failing:
        code = evaluate.main([*openai_flags(up, failing), "--attempts", "3", "--candidates", "2", "--parallel", "1",
                              "--ray", ray_cluster, "--out", str(tmp_path / "out")])
    assert code == 0 and len(failing.requests) > 1  # it did fail some runs
    printed = capsys.readouterr().out
    assert printed.count(f"server {failing.url} failed") <= 1 and printed.count(f"server {up.url} failed") == 0
    summary = json.loads((tmp_path / "out/summary.json").read_text())
    assert summary["infra_failures"] == 0 and summary["overall"] == {"attempts": 3, "repaired": 3, "pass@1": 1.0}
    assert sorted(p.name for p in (tmp_path / "out/attempts").iterdir()) == [f"path_rules-{k}.json" for k in (1, 2, 3)]


def test_without_ray_the_local_pool_runs_and_ray_is_never_imported(evaluated, tmp_path):
    local, _ = evaluated
    out = shutil.copytree(local, tmp_path / "out")
    (out / "attempts/path_rules-2.json").unlink()  # one attempt to run again, in the local pool
    script = (f"import sys, evaluate\nassert evaluate.main({[*EVALUATE_FLAGS, '--out', str(out)]!r}) == 0\n"
              "assert 'ray' not in sys.modules, 'Ray was imported'\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=HERE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "3 already finished" in done.stdout and "1 to run" in done.stdout
