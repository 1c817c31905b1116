"""The independent verdict: did the repair work? pytest decides, on a clean copy, never the model.

`judge(tools, start_tests)` takes a fresh copy of the task's pristine repository, copies in
only the bytes of the editable files from the workspace, and runs the tests there (when no
editable file changed, that copy is the pristine repository: the start run is its result). Nothing
else the model's code could have left behind (a conftest.py, a shadowing module, a forged
cache) reaches that run. It is "repaired" only when the test files are the shipped ones and the
run passes by passing.py's rule (the search's choice applies the same): every test the start run
counted was collected and passed, none failed or errored, and none was skipped that ran before.

What this file deliberately is not: proof against code written to fool pytest itself from
inside the tested module (patching pytest's own reporting). The tests run in pytest's
process, so no test-based verdict can rule that out; the diff in the recording shows it.
"""
import difflib
import os
import stat
import tempfile
from pathlib import Path

from workspace.files import snapshot
from workspace.passing import passes
from workspace.pytest_run import run_pytest
from workspace.task_catalog import fresh_copy


def judge(tools, start_tests):
    """Return {"final_tests", "tests_unchanged", "changed_files", "diff", "verdict"} for a run."""
    changed = changes(tools.task, tools.root)
    if not changed["editable_changed"]:
        # No editable file changed: the judged copy would be the pristine repository, whose
        # run we already have. Running the same bytes again would only cost time.
        final_tests = {**start_tests, "same_as_start": True}
    else:
        final_tests = _final_run(tools)
    return {"final_tests": final_tests, "tests_unchanged": changed["tests_unchanged"],
            "changed_files": changed["changed_files"], "diff": changed["diff"],
            "verdict": verdict(final_tests, changed["tests_unchanged"], start_tests)}


def changes(task, workspace):
    """What a run changed in `workspace` against the task's pristine repository, by bytes:
    {"changed_files", "diff" (of the editable files), "tests_unchanged", "editable_changed"}."""
    shipped, now = snapshot(task.repo, skip_caches=True), snapshot(workspace)
    tests_unchanged = ({p: h for p, h in shipped.items() if task.is_test_file(p)}
                       == {p: h for p, h in now.items() if task.is_test_file(p)})
    return {"changed_files": sorted(p for p in set(shipped) | set(now) if shipped.get(p) != now.get(p)),
            "diff": unified_diff(task, workspace), "tests_unchanged": tests_unchanged,
            "editable_changed": any(shipped.get(path) != now.get(path) for path in task.editable)}


def _final_run(tools):
    """pytest on a fresh pristine copy holding only the editable files' bytes from the workspace,
    with the same command, timeout and sandbox as the run's own tests."""
    task = tools.task
    with tempfile.TemporaryDirectory(prefix="coding-loop-verdict-") as folder:
        judged = fresh_copy(task, folder)
        for path in task.editable:
            _copy_bytes(tools.root / path, judged / path)
        result = {**run_pytest(judged, tools.test_timeout, tools.sandbox, task.pytest), "sandbox": tools.sandbox}
    return {**result, "sandbox_warning": tools.sandbox_warning} if tools.sandbox_warning else result


def verdict(final_tests, tests_unchanged, start_tests):
    """"repaired" only when the test files are byte-for-byte the shipped ones and the clean run's
    tests pass by the rule the search's choice applies too (passing.py): every test the start
    run counted collected and passed, none failed, errored, or skipped where it ran before."""
    if not tests_unchanged:
        return "tests were modified"
    return "repaired" if passes(final_tests, start_tests) else "not repaired"


def _copy_bytes(source, target):
    """Copy a regular file's bytes; anything else (gone, a link, a FIFO) means no file."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        fd = None
    if fd is not None:
        with os.fdopen(fd, "rb") as handle:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                target.write_bytes(handle.read())
                return
    target.unlink(missing_ok=True)


def unified_diff(task, workspace):
    """The unified diff of the editable files, pristine against the workspace."""
    lines = []
    for path in task.editable:
        before, after = _text(task.repo / path), _text(Path(workspace) / path)
        lines += difflib.unified_diff(before, after, f"a/{path}", f"b/{path}")
    return "".join(lines)


def changed_lines(diff):
    """Lines a unified diff adds or removes (its ---/+++ headers are not changes)."""
    return sum(1 for line in str(diff or "").splitlines()
               if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))


def _text(path):
    try:
        return path.read_bytes().decode("utf-8", errors="replace").splitlines(keepends=True)
    except OSError:
        return []
