"""Checking a task folder as untrusted input, once, when the task is loaded (task_catalog.py).

Every problem is one ValueError line naming the task and the field: task.json is a small JSON
object with non-empty `title` and `ticket` and lists of paths; every path is plain, relative,
inside `repo/`, an existing regular file, neither a link nor under one; the repository holds no
links (or, for fix.py's tasks, only links that stay inside it) and no special files; an editable
file is a module, never a test or test configuration (editing a conftest.py could make the tests
pass unfixed). A `"repo"` field may name another folder inside DIR, reached without links; only
the shipped catalog may point elsewhere in the project (the sample task keeps its repository at
`sample_repo/`).

What this file deliberately is not: the catalog (task_catalog.py lists, loads and copies tasks)
or the answer to "is this test code" (user_tests.py).
"""
import json
import os
import stat
from pathlib import Path, PurePosixPath

from workspace.user_tests import is_test_or_config

MAX_SPEC_BYTES = 100_000  # a task.json is a few lines; anything bigger is not one


def read_spec(name, folder):
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


def repo_folder(name, folder, given, bound):
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


def files_problem(task):
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


def odd_entry(repo, links_inside=False):
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
