"""fix.py's first steps in a user's repository, in one call: `prepare(args, folder, view)` checks
the input, copies the starting tree, runs the tests the project's own way (does anything fail,
and can pytest run at all, or is a dependency missing?), builds the task from it (the ticket, the
project's test code, what the model may read and edit, the likely culprit first), ranks the
likely faulty definitions when the settings ask (localizing/ranking.py), and says what the model
will be shown of it. What the recording says of the repository (its git state before the run,
the task_spec) is read here too, once, for a finished run and a stopped one alike. Bad input is
a RepoProblem, one line, and is found as early as it can be (an --editable that matches no file,
before the tests run). `view` is the attempt's (command_line/attempt_view.py): the starting tests
and the ranking go to it as the attempt's own events, so they read as run_attempt's would.

What this file deliberately is not: the run (attempt/run.py, with these as its start), the verdict
or the offer (fix.py), or the reading of pytest's output (workspace/pytest_output.py).
"""
import sys
from pathlib import Path
from typing import NamedTuple

from fixing.left_out import shown
from fixing.project_pytest import default_python, project_command, project_tests
from fixing.repo import RepoProblem, git_state, list_files, starting_tree
from fixing.sorted_files import matching, sort_files
from fixing.task import build_task, choose_files, default_ticket, task_spec
from localizing.ranking import focus_of, when_asked
from loop.context import preload, preload_paths
from loop.context_defs import Answering
from repo_tools import RepoTools
from command_line.printer import clean
from runs.recording_file import output_problem
from workspace import sandbox
from workspace.pytest_collection import missing_modules, pytest_missing
from workspace.pytest_output import failures


class Prepared(NamedTuple):
    """What the first steps found: the repository (its real path), the task built from it, the
    starting test run, the localization (None: not asked), and what a fix.py recording says
    beside the run (`recorded`: the repository it repairs, as git saw it, and its task_spec)."""
    repo: Path
    task: object
    start: dict
    localization: dict
    recorded: dict


def prepare(args, folder, view):
    """The first steps, up to the model (see the module docstring); None when nothing fails."""
    repo, python = check_input(args)
    command = project_command(repo, python, args.tests, args.test_timeout)
    tree = folder / "start"  # the pristine starting tree: every run and the verdict start here
    files, left_out = starting_tree(repo, list_files(repo, skip=command.places), tree)
    if left_out:
        view.line(f"note: left out of the copy: {clean(shown(left_out))}")
    for glob in args.editable:  # a typo is told before the tests run, not minutes later
        if not matching(files, [glob]):
            raise RepoProblem(f"--editable {glob} matches no file of {repo}")
    start = first_run(tree, command, repo, files, view)
    if start is None:
        return None
    task = make_task(args, repo, tree, files, command, start=start, view=view, copy_left_out=left_out)
    # Read before the run (the state its copy was made from), once: kept whether the run ends or is stopped.
    recorded = {"repository": {"name": repo.name, "path": str(repo), **(git_state(repo) or {})},
                "task_spec": task_spec(task, args.tests)}
    # The pristine tree, read (ranked, shown), never edited: every run edits a copy of its own.
    reader = RepoTools(tree, task=task, sandbox_mode=args.sandbox_mode)
    localization = when_asked(args.settings, reader, start)  # beside the start run: once, for every candidate
    say_shown(args.settings, reader, start, localization, view)
    return Prepared(repo, task, start, localization, recorded)


def check_input(args):
    """The repository's real path and the interpreter, or RepoProblem before any work."""
    repo = Path(args.repo).expanduser()
    if not repo.is_dir():
        raise RepoProblem(f"--repo {args.repo} is not a folder")
    repo = repo.resolve()
    python = args.python or default_python(repo)
    if not (Path(python).is_file() and Path(python).stat().st_mode & 0o111):
        raise RepoProblem(f"--python {python} is not an executable file")
    problem = output_problem(args.output) or output_problem(args.patch)
    if problem:
        raise RepoProblem(problem)
    if args.require_sandbox and sandbox.detect()[0] == "none":
        raise RepoProblem(f"a sandbox is required but unavailable: {sandbox.detect()[1]}")
    return repo, python


def first_run(tree, command, repo, files, view):
    """The starting run: its result when tests fail; None when nothing fails; else RepoProblem."""
    if sandbox.detect()[1]:
        print(f"warning: {sandbox.detect()[1]}", file=sys.stderr)
    view.line(f"repository: {clean(str(repo))} (interpreter {clean(command.python)})")
    start = project_tests(tree, command)
    view({"type": "start_tests", "result": start})
    if start["timed_out"]:
        raise RepoProblem(f"the tests took longer than --test-timeout {command.timeout:g} s; "
                          "choose fewer with --tests, or give them more time")
    if pytest_missing(start):
        raise RepoProblem(f"pytest is not installed for {command.python}; install it there "
                          f"({command.python} -m pip install pytest) or pass --python")
    missing = missing_modules(start, files)
    if missing:  # an environment to set up, not a bug for a model to "repair"
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise RepoProblem(f"the tests cannot import {missing[0]}{more} (ModuleNotFoundError), which is not in {repo}: "
                          f"a dependency missing from {command.python}; pass --python with the project's own "
                          "environment, or install the dependencies there")
    if start["exit_code"] == 5:
        raise RepoProblem(f"no tests found in {repo} (pytest collected none); choose them with --tests")
    if start["exit_code"] == 0:
        view.line(f"nothing to fix: the tests pass ({start['passed']} passed)")
        return None
    if start["exit_code"] not in (1, 2) or not (start["failed"] or start["errors"]):
        # Not a test that fails: pytest itself did not run (a usage error, a broken interpreter).
        last = next((line for line in reversed(start["output"].splitlines()) if line.strip()), "")
        raise RepoProblem(f"pytest could not run the tests (exit code {start['exit_code']}): "
                          f"{clean(last)[:200]}; check --tests, --python and the project's pytest configuration")
    return start


def make_task(args, repo, tree, files, command, *, start, view, copy_left_out=()):
    """The task: the ticket, the project's test code, what the model may read and edit, and what
    was left out of them and of the copy (`copy_left_out`), with why."""
    failing = failures(start["output"])
    found = sort_files(tree, files, command, failing, start["output"], project=repo.name, tests_args=args.tests,
                       globs=[*args.readable, *args.editable])
    if found.support:
        view.line(f"note: test code the tests import, never editable by default: {clean(shown(found.support))}")
    chosen = choose_files(found, readable_globs=args.readable, editable_globs=args.editable)
    for note in chosen.notes:
        view.line(f"note: {clean(note)}")
    if not chosen.editable:
        raise RepoProblem(f"nothing to edit in {repo}: {clean(chosen.why_none)}; choose files with --editable GLOB")
    task = build_task(repo.name, args.ticket or default_ticket(failing, start), tree, found.of("test"), command,
                      readable=chosen.readable, editable=chosen.editable, left_out=[*copy_left_out, *chosen.left_out])
    view.line(f"task: {len(chosen.readable)} readable files, editable: {clean(shown(chosen.editable))}")
    return task


def say_shown(settings, reader, start, localization, view):
    """Say on the terminal what the model will be shown, before any model is asked (so it shows
    even when none answers): the ranking, when the settings asked for one, and under "preload"
    the files of the first message, whole or by definitions (the run's own rule, around the
    ranking), and what it leaves out. `reader`: the tools of the pristine tree."""
    if localization is not None:
        view({"type": "localization", "localization": localization})
    if settings.context != "preload":
        return
    answering = Answering.of(settings, focus_of(localization), start)
    _, seen = preload(reader.task, start, reader.file_text, answering=answering)
    by_definitions = [item.path for item in answering.shown]
    left = [path for path in preload_paths(reader.task) if path not in seen and path not in by_definitions]
    outlined = f"; by definitions: {clean(shown(by_definitions))}" if by_definitions else ""
    view.line(f"context: the model is shown {clean(shown(list(seen)) or 'no file')} whole{outlined} "
              f"({sum(len(text) for text in seen.values()):,} characters whole)")
    if left:
        view.line(f"context: left out (the model may read them; --readable GLOB shows files first): "
                  f"{clean(shown(left))}")
