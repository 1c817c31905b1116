"""A user's own repository, read and never written: its files, its git state, a starting copy.

fix.py must leave the user's tree exactly as it was until the user approves a patch, so this
file only reads it: `list_files` asks git for the files it would keep (tracked ones and new
ones it does not ignore: the user's uncommitted work included, their .venv and caches left
out; a submodule's or a nested repository's files too, asked of it in turn) or walks the folder skipping what never belongs to a project's source; `starting_tree`
copies those files' bytes into a temporary folder, the pristine tree every run starts from.

Why a copy and not a `git worktree`: a worktree checks out the last commit (not the work in
progress the failing test is about), writes into the user's `.git`, runs their checkout hooks,
and stays registered there if the run is killed. Git is only asked read-only questions here
(`ls-files`, `rev-parse`), with optional locks off, so it does not even refresh the index.

What this file deliberately is not: a choice of what the model may read or edit (task.py)
or a writer to the user's tree (patch.py applies an approved patch, and nothing else does).
"""
import os
import shutil
import stat
import subprocess
from pathlib import Path

TREE_BYTES = 96 * 1024**2  # all the files of a run's copy; the sandbox's disk is 128 MiB
NEVER = {".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox",
         ".nox", ".eggs", "node_modules", ".venv", "venv", ".coverage"}
GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}


class RepoProblem(Exception):
    """Bad input: one sentence that says what is wrong and what to do."""


def git(repo, *args):
    """Output of a read-only git command in `repo`, or None when git is missing or fails."""
    try:
        done = subprocess.run(["git", "-C", str(repo), "-c", "core.fsmonitor=false", *args],
                              capture_output=True, env={**os.environ, **GIT_ENV}, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "surrogateescape") if done.returncode == 0 else None


def is_git_top(repo):
    """True when `repo` is the top folder of a git work tree (a subfolder is walked instead)."""
    top = git(repo, "rev-parse", "--show-toplevel")
    return top is not None and os.path.realpath(top.strip()) == os.path.realpath(repo)


def list_files(repo, skip=()):
    """Every file of the project (relative posix paths, sorted): git's list, or a walk. Never
    under `skip` (absolute folders: the project's interpreter) or a folder in NEVER."""
    repo, skip = Path(repo), [Path(s) for s in skip]
    listed = git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard") if is_git_top(repo) else None
    if listed is None:
        return [p for p in _walk(repo) if not any((repo / p).is_relative_to(s) for s in skip)]
    found = set()
    for path in set(listed.split("\0")):
        path = path.rstrip("/")  # an untracked nested repository is listed as "data/"
        if not path or any(_never(repo / part) for part in Path(path).parents if str(part) != ".") \
                or any((repo / path).is_relative_to(s) for s in skip):
            continue  # git lists a venv it does not ignore
        if (repo / path).is_dir() and not (repo / path).is_symlink():
            # A submodule or a nested repository: one folder to git, files the tests may read.
            if not _never(repo / path):
                found.update(f"{path}/{inner}" for inner in list_files(repo / path, skip))
        elif _is_file_or_link(repo / path):  # deleted files are still in the index: keep what is there
            found.add(path)
    return sorted(found)


def _is_file_or_link(path):
    try:
        kind = os.lstat(path).st_mode
    except OSError:
        return False
    return stat.S_ISREG(kind) or stat.S_ISLNK(kind)


def _walk(repo):
    found = []
    for here, folders, files in os.walk(repo, onerror=lambda error: None):
        folders[:] = sorted(f for f in folders if not _never(Path(here) / f))
        for name in files + [f for f in folders if os.path.islink(os.path.join(here, f))]:
            if name not in NEVER and _is_file_or_link(os.path.join(here, name)):
                found.append(Path(here, name).relative_to(repo).as_posix())
    return sorted(found)


def _never(folder):
    """Folders that are never a project's source: VCS data, caches, virtual environments."""
    return (folder.name in NEVER or folder.name.endswith(".egg-info")
            or (folder / "pyvenv.cfg").exists())


def git_state(repo):
    """{"commit", "dirty"} when `repo` is a git repository (commit None before the first one)."""
    if not is_git_top(repo):
        return None
    commit = git(repo, "rev-parse", "--verify", "-q", "HEAD")
    changed = git(repo, "ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard")
    return {"commit": commit.strip() if commit else None, "dirty": bool(changed)}


def starting_tree(repo, files, folder):
    """Copy `files` from `repo` into `folder` and return (copied, skipped): the paths copied,
    and one "path (why)" per file left out (unreadable, or a link pointing outside `repo`).
    A link is copied as a link to the same file inside the copy; none is ever followed out."""
    repo, folder = Path(repo), Path(folder)
    if not files:  # nothing to copy is nothing to test: say so, before a test run fails on no folder
        raise RepoProblem(f"{repo} holds no files (git tracks none, or the folder is empty); "
                          "point --repo at a project with its tests")
    total = sum(_size(repo / path) for path in files)
    if total > TREE_BYTES:  # said before a byte is copied
        raise RepoProblem(f"{repo} holds {total // 1024**2} MB in {len(files)} files, more than a run's copy "
                          f"may ({TREE_BYTES // 1024**2} MB, the sandbox's disk); leave large data out of git, "
                          "or fix a smaller folder")
    copied, skipped = [], []
    for path in files:
        source, target = repo / path, folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            if os.path.islink(source):
                _copy_link(repo, source, target)
            else:
                _copy_file(source, target)
        except OSError as error:
            skipped.append(f"{path} ({error.strerror or type(error).__name__})")
            continue
        copied.append(path)
    return copied, skipped


def _size(path):
    try:
        return os.lstat(path).st_size
    except OSError:
        return 0


def _copy_link(repo, source, target):
    """Make `target` a relative link to the file `source` points at, when that is inside `repo`:
    an absolute link or one that climbs out and back in would lead out of the copy, to the
    user's own file. A link pointing outside is refused (OSError): the tests never follow it
    to a file outside the repository. Nothing is read: the path is resolved, never opened."""
    points_to = os.path.realpath(source)
    if not Path(points_to).is_relative_to(os.path.realpath(repo)):
        raise OSError(0, "a link pointing outside the repository")
    os.symlink(os.path.relpath(points_to, os.path.realpath(source.parent)), target)


def _copy_file(source, target):
    """Copy one regular file's bytes (never a FIFO or a device: opening one could hang) and
    its executable bit."""
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(0, "not a regular file")
        with open(target, "wb") as out:
            shutil.copyfileobj(handle, out)
    os.chmod(target, 0o755 if info.st_mode & 0o100 else 0o644)
