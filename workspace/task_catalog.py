"""The tasks: one faulty repository each, with the ticket a user would file and its allowlists.

`DIR/<name>/task.json` holds `{"title", "ticket", "readable", "editable"}`; the repository is
`DIR/<name>/repo/`. DIR is the shipped `tasks/` unless a caller passes `tasks_dir` (the CLIs'
`--tasks-dir`). `task_names(tasks_dir)` lists the tasks; `load_task(name, tasks_dir)` reads and
checks one and returns a `Task`; `fresh_copy(task, folder)` copies its pristine repository.

A task folder is untrusted input (someone else's, or a shared one). Its name is plain
(PLAIN_NAME: it is printed, and part of each attempt's file name); `load_task` checks the rest
once (task_checks.py says what), and any problem is one ValueError line naming the task and
the field.

What this file deliberately is not: a grader (verdict.py is) or a place that knows the fix
(`solution.json` beside a task is for the scripted attempts and the tests, never the model).
"""
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from workspace.task_checks import files_problem, odd_entry, read_spec, repo_folder
from workspace.user_tests import is_test

PROJECT = Path(__file__).resolve().parent.parent
TASKS = PROJECT / "tasks"
SAMPLE_TASK = "path_rules"
PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")  # a task folder's name: printable, one shell word


@dataclass(frozen=True)
class Task:
    name: str
    title: str
    ticket: str
    readable: tuple
    editable: tuple
    repo: Path
    folder: Path = None   # the task's own folder: task.json, solution.json (None: a task fix.py built)
    pytest: object = None  # a PytestCommand of its own (fix.py's user projects); None: the fixed one

    def prompt(self):
        """The first user message: the ticket, then which files the tools allow."""
        return (f"{self.ticket}\n\nFiles you can read: {', '.join(self.readable)}\n"
                f"Files you can edit: {', '.join(self.editable)}")

    keeps_links = False  # no link at all; fix.py's UserTask keeps the links that stay inside its repository
    tests = ()  # the test files found by what the tests use (fix.py's UserTask); a shipped task's are named so

    def is_test_file(self, path):
        """Test code, by the one answer (workspace/user_tests.py): in `tests`, or named like a test."""
        return is_test(path, self.tests)


def task_names(tasks_dir=None):
    """Every task folder with a task.json, the sample first; a name outside PLAIN_NAME is a ValueError."""
    names = sorted(p.parent.name for p in _folder(tasks_dir).glob("*/task.json"))
    for name in (name for name in names if not PLAIN_NAME.fullmatch(name)):
        raise ValueError(f"a task folder in {_folder(tasks_dir)} is named {ascii(name)[:80]}: a task's name may "
                         "hold only letters, digits, '_', '.' and '-' (not first); rename the folder")
    return sorted(names, key=lambda name: name != SAMPLE_TASK)


def load_task(name=SAMPLE_TASK, tasks_dir=None):
    """Read and check one task; any problem is a one-line ValueError naming the task and the field."""
    folder = _folder(tasks_dir)
    if name not in task_names(tasks_dir):
        raise ValueError(f"no task {name!r} in {folder}; tasks: {', '.join(task_names(tasks_dir)) or '(none)'}")
    spec = read_spec(name, folder)
    # The shipped catalog is the project's own: its sample task shares sample_repo/ with the card.
    repo = repo_folder(name, folder, spec.get("repo", "repo"), PROJECT if folder == TASKS else folder)
    task = Task(name=name, title=spec["title"], ticket=spec["ticket"], readable=tuple(spec["readable"]),
                editable=tuple(spec["editable"]), repo=repo, folder=folder / name)
    problem = files_problem(task) or odd_entry(repo)
    if problem:
        raise ValueError(f"task {name!r}: {problem}")
    return task


def _folder(tasks_dir):
    if tasks_dir is None:
        return TASKS
    if not Path(tasks_dir).is_dir():  # named as the mistake, not as a folder with no task in it
        raise ValueError(f"--tasks-dir {tasks_dir} {'is not a folder' if Path(tasks_dir).exists() else 'does not exist'}")
    return Path(tasks_dir).resolve()


def fresh_copy(task, folder):
    """Copy the task's pristine repository into `folder`/repo and return the copy's path.
    Modes are opened up (files 0644, or 0755 when executable; folders 0755) so the sandboxed
    user can read them. A link is copied as a link, never followed, so no outside file's text
    gets in (and no chmod goes through it); one that appeared since the task was checked, or
    that leads out of the copy (for a task that `keeps_links`), is then refused."""
    copy = Path(shutil.copytree(task.repo, Path(folder) / "repo", symlinks=True,
                                ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")))
    problem = odd_entry(copy, links_inside=task.keeps_links)
    if problem:
        raise ValueError(f"task {task.name!r}: {problem}")
    for here, folders, files in os.walk(copy):
        os.chmod(here, 0o755)
        for name in files:
            path = os.path.join(here, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755 if os.stat(path).st_mode & 0o100 else 0o644)
    return copy


def solution_edits(task):
    """The edits that repair a task (`solution.json`): for scripted attempts and tests only."""
    spec = json.loads((task.folder / "solution.json").read_text(encoding="utf-8"))
    return spec["edits"]
