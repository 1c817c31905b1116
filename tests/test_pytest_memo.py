"""The suite's memory of sandboxed pytest runs (testing/pytest_memo.py): a run of the same bytes
is run once, and anything that could change a run runs it again."""
import functools
import json
import os
import resource

import pytest

from repo_tools import RepoTools
from evaluation import workers
from testing.pytest_memo import PytestMemo, install
from tests.processes import a_copys_tests_run_in_a_worker
from workspace import pytest_run
from workspace.task_catalog import fresh_copy, load_task

LIMITS = [(resource.RLIMIT_CPU, 65), (resource.RLIMIT_NPROC, 100)]


class Runs:
    """Stands in for run_bounded where a test is about the memo's bookkeeping: counts the runs and
    says where it ran (the path appears in the output, as pytest's does)."""

    def __init__(self, timed_out=False):
        self.cwds, self.timed_out = [], timed_out

    def __call__(self, command, cwd, env, timeout, limits):
        self.cwds.append(cwd)
        return 1, f"{cwd}/tests/test_a.py F\n1 failed", 0, self.timed_out


def tree(folder, text="x = 1\n"):
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "test_a.py").write_text(text)
    return folder


def test_the_same_bytes_elsewhere_are_answered_with_their_own_path(tmp_path):
    runs = Runs()
    memo = PytestMemo(tmp_path / "memo", runs)
    first, second = tree(tmp_path / "one"), tree(tmp_path / "two")
    memo.run_bounded(["python", str(first)], first, {"HOME": str(first)}, 60, LIMITS)
    answer = memo.run_bounded(["python", str(second)], second, {"HOME": str(second)}, 60, LIMITS)
    assert runs.cwds == [first] and (memo.ran, memo.answered) == (1, 1)
    assert answer == (1, f"{second}/tests/test_a.py F\n1 failed", 0, False)


def test_the_same_bytes_under_other_folders_are_answered(tmp_path):
    """The sandbox names every folder above the tree (an evaluation's scratch folder is new
    each time); the same tree as deep under other folders is the same run."""
    runs = Runs()
    memo = PytestMemo(tmp_path / "memo", runs)
    first, second = tree(tmp_path / "eval-1" / "attempt-a" / "repo"), tree(tmp_path / "eval-2" / "attempt-b" / "repo")
    for root in (first, second):
        memo.run_bounded(["bwrap", "--dir", str(root.parent.parent), "--dir", str(root.parent), "--tmpfs", "/tmp",
                          "--chdir", str(root)], root, {"HOME": str(root)}, 60, LIMITS)
    assert runs.cwds == [first] and (memo.ran, memo.answered) == (1, 1)


def test_a_run_at_another_path_is_answered_with_that_path(tmp_path):
    """fix.py runs a project's tests at the user's own path (the sandbox's --chdir, their files
    hidden): the same tree run at another user's path is the same run, and says that path."""
    runs = []
    def at_chdir(command, cwd, env, timeout, limits):
        runs.append(cwd)
        return 1, f"rootdir: {command[command.index('--chdir') + 1]}\n1 failed", 0, False
    memo = PytestMemo(tmp_path / "memo", at_chdir)
    first, second = tree(tmp_path / "copy-1" / "start"), tree(tmp_path / "copy-2" / "start")
    answers = [memo.run_bounded(["bwrap", "--ro-bind", str(root), "/tmp/.source", "--dir", str(user.parent),
                                 "--tmpfs", str(user), "--chdir", str(user)], root, {"HOME": str(user)}, 60, LIMITS)
               for root, user in ((first, tmp_path / "alice" / "calc"), (second, tmp_path / "bob" / "calc"))]
    assert runs == [first] and answers[1] == (1, f"rootdir: {tmp_path}/bob/calc\n1 failed", 0, False)


@pytest.mark.parametrize("change", [
    lambda root: (root / "tests" / "test_a.py").write_text("x = 2\n"),          # a byte
    lambda root: (root / "tests" / "test_a.py").chmod(0o755),                   # a mode
    lambda root: (root / "link").symlink_to("tests"),                           # an entry
    lambda root: (root / "tests" / "empty").mkdir()])                           # a folder
def test_anything_that_could_change_a_run_runs_it_again(tmp_path, change):
    runs = Runs()
    memo = PytestMemo(tmp_path / "memo", runs)
    root = tree(tmp_path / "one")
    memo.run_bounded(["python"], root, {}, 60, LIMITS)
    change(root)
    memo.run_bounded(["python"], root, {}, 60, LIMITS)
    assert memo.run_bounded(["python"], root, {}, 60.5, LIMITS) and memo.ran == 3  # and the timeout
    assert memo.run_bounded(["python", "-x"], root, {}, 60, LIMITS) and memo.ran == 4  # and the command
    assert memo.run_bounded(["python"], root, {"A": "1"}, 60, LIMITS) and memo.ran == 5  # and the environment


def test_a_run_that_timed_out_is_never_kept_and_an_unreadable_tree_is_always_run(tmp_path):
    runs = Runs(timed_out=True)
    memo = PytestMemo(tmp_path / "memo", runs)
    root = tree(tmp_path / "one")
    memo.run_bounded(["python"], root, {}, 60, LIMITS)
    memo.run_bounded(["python"], root, {}, 60, LIMITS)
    runs.timed_out = False
    (root / "tests").chmod(0)
    try:
        if os.access(root / "tests", os.R_OK):
            pytest.skip("this user reads any folder (root): an unreadable tree cannot be made here")
        memo.run_bounded(["python"], root, {}, 60, LIMITS)
        memo.run_bounded(["python"], root, {}, 60, LIMITS)
    finally:
        (root / "tests").chmod(0o755)
    assert memo.ran == 4 and memo.answered == 0


def test_the_process_allowance_of_the_moment_does_not_make_a_run_new(tmp_path):
    memo = PytestMemo(tmp_path / "memo", Runs())
    root = tree(tmp_path / "one")
    memo.run_bounded(["python"], root, {}, 60, LIMITS)
    memo.run_bounded(["python"], root, {}, 60, [(resource.RLIMIT_CPU, 65), (resource.RLIMIT_NPROC, 107)])
    assert memo.answered == 1


@pytest.mark.real_pytest_runs
def test_an_answered_run_is_what_a_real_run_of_that_copy_gives(tmp_path, monkeypatch):
    memo = PytestMemo(tmp_path / "memo", pytest_run.run_bounded)
    task = load_task("path_rules")
    first = RepoTools(fresh_copy(task, tmp_path / "first"), task=task)
    second = RepoTools(fresh_copy(task, tmp_path / "second"), task=task)
    really = second.run_tests()
    monkeypatch.setattr(pytest_run, "run_bounded", memo.run_bounded)
    first.run_tests()
    assert second.run_tests() == really and (memo.ran, memo.answered) == (1, 1)


@pytest.mark.real_pytest_runs
def test_evaluates_worker_processes_answer_from_the_same_memo(tmp_path, monkeypatch):
    """evaluate.py's workers are spawned clean: without the setup conftest hands them, every
    attempt's tests there would run for real. A run kept here is answered there, unchanged."""
    memo = PytestMemo(tmp_path / "memo", pytest_run.run_bounded)
    task = load_task("path_rules")
    here, there = fresh_copy(task, tmp_path / "here"), fresh_copy(task, tmp_path / "there")
    monkeypatch.setattr(pytest_run, "run_bounded", memo.run_bounded)
    really = RepoTools(here, task=task).run_tests()
    monkeypatch.setattr(workers, "WORKER_SETUP", [functools.partial(install, str(tmp_path / "memo"))])
    outcomes = []
    workers.run_in_workers(1, a_copys_tests_run_in_a_worker, [there], lambda *outcome: outcomes.append(outcome))
    [(_, (result, counts), error)] = outcomes
    assert error is None and counts == (0, 1)
    assert result == json.loads(json.dumps(really).replace(str(here), str(there)))
