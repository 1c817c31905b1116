"""The tasks: one faulty repository each, with the ticket a user would file and its allowlists.

`tasks/<name>/task.json` holds `{"title", "ticket", "readable", "editable"}`; the repository is
`tasks/<name>/repo/` (the sample task `path_rules` points at `sample_repo/` instead, with a
`"repo"` field). `load_task(name)` returns a `Task`; `fresh_copy(task, folder)` copies its
pristine repository for one run.

What this file deliberately is not: a grader (verdict.py is) or a place that knows the fix.
The `solution.json` beside a task is for the scripted attempts and the tests, never the model.
"""
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

TASKS = Path(__file__).resolve().parent.parent / "tasks"
SAMPLE_TASK = "path_rules"
TEST_FOLDER = "tests/"


@dataclass(frozen=True)
class Task:
    name: str
    title: str
    ticket: str
    readable: tuple
    editable: tuple
    repo: Path
    pytest: object = None  # a PytestCommand of its own (fix.py's user projects); None: the fixed one

    def prompt(self):
        """The first user message: the ticket, then which files the tools allow."""
        return (f"{self.ticket}\n\nFiles you can read: {', '.join(self.readable)}\n"
                f"Files you can edit: {', '.join(self.editable)}")

    def is_test_file(self, path):
        return path.startswith(TEST_FOLDER)


def task_names():
    """Every task folder with a task.json, the sample first."""
    names = sorted(p.parent.name for p in TASKS.glob("*/task.json"))
    return sorted(names, key=lambda name: name != SAMPLE_TASK)


def load_task(name=SAMPLE_TASK):
    """Read and check one task; a broken task.json is a ValueError that names it."""
    folder = TASKS / name
    if name not in task_names():
        raise ValueError(f"no task {name!r}; tasks: {', '.join(task_names())}")
    spec = json.loads((folder / "task.json").read_text(encoding="utf-8"))
    task = Task(name=name, title=spec["title"], ticket=spec["ticket"], readable=tuple(spec["readable"]),
                editable=tuple(spec["editable"]), repo=(folder / spec.get("repo", "repo")).resolve())
    if not set(task.editable) <= set(task.readable) or any(map(task.is_test_file, task.editable)):
        raise ValueError(f"task {name!r}: editable files must be readable and never tests")
    return task


def fresh_copy(task, folder):
    """Copy the task's pristine repository into `folder`/repo and return the copy's path.
    Modes are opened up (files 0644, or 0755 when executable; folders 0755) so the sandboxed
    user can read them. Links are copied as links and never followed: chmod through a link
    would change the file it points to, wherever that is."""
    copy = Path(shutil.copytree(task.repo, Path(folder) / "repo", symlinks=True,
                                ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")))
    for here, folders, files in os.walk(copy):
        os.chmod(here, 0o755)
        for name in files:
            path = os.path.join(here, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755 if os.stat(path).st_mode & 0o100 else 0o644)
    return copy


def solution_edits(task):
    """The edits that repair a task (`solution.json`): for scripted attempts and tests only."""
    spec = json.loads((TASKS / task.name / "solution.json").read_text(encoding="utf-8"))
    return spec["edits"]
