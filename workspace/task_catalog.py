"""The tasks: one faulty repository each, with the ticket a user would file and its allowlists.

`DIR/<name>/task.json` holds `{"title", "ticket", "readable", "editable"}`; the repository is
`DIR/<name>/repo/`. DIR is the shipped `tasks/` unless a caller passes `tasks_dir` (the CLIs'
`--tasks-dir`). `task_names(tasks_dir)` lists the tasks; `load_task(name, tasks_dir)` reads and
checks one and returns a `Task`; `fresh_copy(task, folder)` copies its pristine repository.

A task folder is untrusted input (someone else's, or a shared one). Its name is plain
(PLAIN_NAME: it is printed, and part of each attempt's file name); `load_task` checks the rest
once, and any problem is one ValueError line naming the task and the field: every path is plain,
relative, inside `repo/`, an existing regular file, neither a link nor under one; the repository
holds no links; an editable file is a module, never a test or test configuration (editing a
conftest.py could make the tests pass unfixed). A `"repo"` field may name another folder inside
DIR, without links; only the shipped catalog may point elsewhere in the project (the sample task
`path_rules` keeps its repository at `sample_repo/`).

What this file deliberately is not: a grader (verdict.py is) or a place that knows the fix
(`solution.json` beside a task is for the scripted attempts and the tests, never the model).
"""
import json
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from workspace.user_tests import is_test, is_test_or_config

PROJECT = Path(__file__).resolve().parent.parent
TASKS = PROJECT / "tasks"
SAMPLE_TASK = "path_rules"
MAX_SPEC_BYTES = 100_000  # a task.json is a few lines; anything bigger is not one
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
    spec = _spec(name, folder)
    # The shipped catalog is the project's own: its sample task shares sample_repo/ with the card.
    repo = _repo(name, folder, spec.get("repo", "repo"), PROJECT if folder == TASKS else folder)
    task = Task(name=name, title=spec["title"], ticket=spec["ticket"], readable=tuple(spec["readable"]),
                editable=tuple(spec["editable"]), repo=repo, folder=folder / name)
    problem = _files_problem(task) or _odd_entry(repo)
    if problem:
        raise ValueError(f"task {name!r}: {problem}")
    return task


def _folder(tasks_dir):
    return TASKS if tasks_dir is None else Path(tasks_dir).resolve()


def _spec(name, folder):
    """DIR/<name>/task.json as a dict with every required field of the right type."""
    path = folder / name / "task.json"
    kind = _kind(folder, f"{name}/task.json")
    if kind:
        raise ValueError(f"task {name!r}: task.json {kind}")
    try:
        too_big = path.stat().st_size > MAX_SPEC_BYTES
        spec = None if too_big else json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"task {name!r}: task.json cannot be read as JSON ({type(error).__name__})") from None
    if too_big:
        raise ValueError(f"task {name!r}: task.json is larger than {MAX_SPEC_BYTES} bytes")
    if not isinstance(spec, dict):
        raise ValueError(f"task {name!r}: task.json must be a JSON object, not a {type(spec).__name__}")
    for field in ("title", "ticket"):
        if not isinstance(spec.get(field), str) or not spec[field].strip():
            raise ValueError(f"task {name!r}: {field} must be non-empty text")
    for field in ("readable", "editable"):
        paths = spec.get(field)
        if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
            raise ValueError(f"task {name!r}: {field} must be a non-empty list of file paths (text)")
    return spec


def _repo(name, folder, given, bound):
    """The repository folder: relative, inside `bound`, a real folder reached through no link."""
    if not isinstance(given, str) or not given or os.path.isabs(given):
        raise ValueError(f"task {name!r}: repo must be a relative folder path, not {str(given)[:80]!r}")
    # Lexically first (so `..` cannot climb out), then on disk: resolving must change nothing,
    # or some folder on the way is a link.
    lexical = Path(os.path.normpath(folder / name / given))
    if not lexical.is_relative_to(bound):
        raise ValueError(f"task {name!r}: repo {given!r} is outside {bound}")
    if lexical.resolve() != lexical or not lexical.is_dir():
        raise ValueError(f"task {name!r}: repo {given!r} is not a folder reached without links")
    return lexical


def _files_problem(task):
    """The first problem with the readable and editable paths, or None."""
    for field in ("readable", "editable"):
        for path in getattr(task, field):
            if not path or os.path.isabs(path) or ".." in path.split("/") or PurePosixPath(path).as_posix() != path:
                return f"{field}: {path[:80]!r} must be a plain relative path inside the repository"
            kind = _kind(task.repo, path)
            if kind:
                return f"{field}: {path!r} {kind}"
    for path in task.editable:
        if path not in task.readable:
            return f"editable: {path!r} must be readable too"
        if is_test_or_config(path):
            return f"editable: {path!r} is a test or test configuration; only the code under test may be editable"
        if not path.endswith(".py"):
            return f"editable: {path!r} must be a Python module (.py)"
    return None


def _kind(root, path):
    """None when `root`/`path` is a regular file reached through no link; else what it is instead."""
    here, parts = Path(root), PurePosixPath(path).parts
    for depth, part in enumerate(parts, 1):
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            return "does not exist"
        if stat.S_ISLNK(mode):
            return "is a link" if depth == len(parts) else f"is under a link ({'/'.join(parts[:depth])})"
    return None if stat.S_ISREG(mode) else "is not a regular file"


def _odd_entry(repo, links_inside=False):
    """The first link or special file anywhere in the repository, as a problem, or None.
    With `links_inside`, a link that resolves inside the repository is no problem."""
    real = os.path.realpath(repo)
    for here, folders, files in os.walk(repo):
        for name in folders + files:
            try:
                mode = os.lstat(os.path.join(here, name)).st_mode
            except OSError:
                continue  # gone while we looked: nothing to copy
            if links_inside and stat.S_ISLNK(mode) and Path(
                    os.path.realpath(os.path.join(here, name))).is_relative_to(real):
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                where = Path(here, name).relative_to(repo).as_posix()
                return f"repo: {where} is {'a link' if stat.S_ISLNK(mode) else 'a special file'}; " \
                       "a task's repository may hold only files and folders"
    return None


def fresh_copy(task, folder):
    """Copy the task's pristine repository into `folder`/repo and return the copy's path.
    Modes are opened up (files 0644, or 0755 when executable; folders 0755) so the sandboxed
    user can read them. A link is copied as a link, never followed, so no outside file's text
    gets in (and no chmod goes through it); one that appeared since the task was checked, or
    that leads out of the copy (for a task that `keeps_links`), is then refused."""
    copy = Path(shutil.copytree(task.repo, Path(folder) / "repo", symlinks=True,
                                ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")))
    problem = _odd_entry(copy, links_inside=task.keeps_links)
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
