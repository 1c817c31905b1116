"""When a run's tests pass: the one rule the search's choice and the verdict both apply.

`passes(run, start)` compares a test run with the start run (the faulty repository's). It passes
only when pytest exited 0 in time, no test failed or errored, it counted the tests the start run
counted (more only when the start run had an error: a test module that cannot be imported is one
error, however many tests it holds), more than none passed, and no more were skipped, deselected
or xfailed than at the start, whatever the start run was: a test that no longer runs is not a
repair. attempt/choosing.py asks it of each candidate's own run; verdict.py of the judged run.

`start_run(tools)` is the start run the rule compares with. A start run that timed out or was
killed (a bug that hangs) counts no test at all; then `--collect-only` on the same pristine copy,
bounded and sandboxed like every run, says how many there are (`collected`; None when it could
not tell either, and then no run passes: all of the start's tests must be seen to pass).

What this file deliberately is not: a runner (pytest_run.py runs pytest) or a reader of pytest's
output (pytest_output.py counts it). Every field may come from a recording, so from anyone: a
missing or odd field means "not passed".
"""
from dataclasses import replace

from workspace.pytest_collection import collection
from workspace.pytest_output import NOT_RUN
from workspace.pytest_run import PytestCommand, run_pytest


def passes(run, start):
    """True when `run`'s tests pass, judged against the `start` run (see the module docstring)."""
    if not isinstance(run, dict) or not isinstance(start, dict):
        return False
    found = {key: _count(run, key) for key in ("passed", "failed", "errors", *NOT_RUN)}
    expected, more_allowed = _expected(start)
    if None in found.values() or expected is None:
        return False
    counted = found["passed"] == expected or (more_allowed and found["passed"] > expected)
    no_fewer_run = all(found[key] <= (_baseline(start, key) or 0) for key in NOT_RUN)
    return (run.get("exit_code") == 0 and not run.get("timed_out") and found["failed"] == found["errors"] == 0
            and found["passed"] > 0 and counted and no_fewer_run)


def counted(start):
    """Did this run count its tests? Not when it timed out or was killed (no summary line)."""
    code = start.get("exit_code")
    return not start.get("timed_out") and isinstance(code, int) and code >= 0


def _expected(start):
    """(how many tests a passing run counts, whether more may pass), or (None, False) unknown."""
    if not counted(start):
        found = start.get("collected")
        if not isinstance(found, dict) or None in (_count(found, "tests"), _count(found, "errors")):
            return None, False
        return found["tests"] + found["errors"], found["errors"] > 0
    counts = [_count(start, key) for key in ("passed", "failed", "errors", "subtests_failed")]
    if None in counts:
        return None, False
    # A failed subtest counts in "failed" though its test is counted too (passed, or failed).
    return counts[0] + counts[1] + counts[2] - counts[3], counts[2] > 0


def _baseline(start, key):
    """How many tests the start run left unrun in the way `key` says (a start run that counted
    nothing: what its collection deselected, and none skipped)."""
    if counted(start):
        return _count(start, key)
    found = start.get("collected")
    return _count(found, key) if key == "deselected" and isinstance(found, dict) else 0


def _count(result, key):
    """An int count (a missing one is 0), or None for anything else."""
    value = result.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def start_run(tools):
    """The start run of `tools.root` (a pristine copy), with `collected` when it counted nothing."""
    start = tools.run_tests()
    if counted(start):
        return start
    command = tools.task.pytest or PytestCommand()
    listed = run_pytest(tools.root, tools.test_timeout, tools.sandbox,
                        replace(command, args=(*command.args, "--collect-only")))
    return {**start, "collected": None if listed["timed_out"] else collection(listed["output"])}
