"""fix.py's first steps in a user's repository: the starting test run (does anything fail, and can
pytest run at all?) and the task built from it (the ticket, the project's test files, what the
model may read and edit, the likely culprit first).

What this file deliberately is not: the run, the verdict or the offer (fix.py), or the reading of
pytest's output (workspace/project_pytest.py).
"""
import sys

from runs.printer import clean, result_line
from workspace import sandbox
from workspace.project_pytest import COLLECT, blamed_files, collected_files, failures, project_tests, pytest_missing
from workspace.user_repo import RepoProblem
from workspace.user_task import build_task, choose_files, default_ticket, matching, shown


def first_run(tree, command, repo, show):
    """The starting run: its result when tests fail; None when nothing fails; else RepoProblem."""
    if sandbox.detect()[1]:
        print(f"warning: {sandbox.detect()[1]}", file=sys.stderr)
    show.line(f"repository: {clean(str(repo))} (interpreter {clean(command.python)})")
    start = project_tests(tree, command)
    show.line(f"starting tests: {result_line(start)}")
    if start["timed_out"]:
        raise RepoProblem(f"the tests took longer than --test-timeout {command.timeout:g} s; "
                          "choose fewer with --tests, or give them more time")
    if pytest_missing(start):
        raise RepoProblem(f"pytest is not installed for {command.python}; install it there "
                          f"({command.python} -m pip install pytest) or pass --python")
    if start["exit_code"] == 5:
        raise RepoProblem(f"no tests found in {repo} (pytest collected none); choose them with --tests")
    if start["exit_code"] == 0:
        show.line(f"nothing to fix: the tests pass ({start['passed']} passed)")
        return None
    if start["exit_code"] not in (1, 2) or not (start["failed"] or start["errors"]):
        # Not a test that fails: pytest itself did not run (a usage error, a broken interpreter).
        last = next((line for line in reversed(start["output"].splitlines()) if line.strip()), "")
        raise RepoProblem(f"pytest could not run the tests (exit code {start['exit_code']}): "
                          f"{clean(last)[:200]}; check --tests, --python and the project's pytest configuration")
    return start


def make_task(args, repo, tree, files, command, start, show):
    """The task: the ticket, the project's test files, what the model may read and edit."""
    failing = failures(start["output"])
    # The failing tests' files first, then the code their tracebacks point at: a small model
    # answers about the first file it is shown, so the likely culprit must not come after others.
    failing_files = [test.split("::")[0] for test, _ in failing]
    first = failing_files + blamed_files(start["output"], files)
    # Only the failing tests' own files join the collected ones: a blamed file is code to repair.
    tests = {*collected_files(project_tests(tree, command, COLLECT)["output"]), *failing_files}
    for glob in args.editable:
        if not matching(files, [glob]):
            raise RepoProblem(f"--editable {glob} matches no file of {repo}")
    readable, editable, notes = choose_files(tree, files, tests, first, args.readable, args.editable)
    for note in notes:
        show.line(f"note: {clean(note)}")
    if not editable:
        raise RepoProblem(f"nothing to edit in {repo}: no text file outside the tests was chosen; "
                          "choose files with --editable GLOB")
    task = build_task(repo.name, args.ticket or default_ticket(failing, start), tree, tests, command,
                      readable, editable)
    show.line(f"task: {len(readable)} readable files, editable: {clean(shown(editable))}")
    return task
