"""Safe file work shared by the whole project: atomic writes, fingerprints, removing trees.

Every file the project writes (an edited file, a recording, a summary, a report) goes through
`write_atomic`, so no reader ever sees half a file and every file is readable (0644 at least).
`write_kept` writes a result that must not be lost (a finished run, its patch): when its place
is gone, under a fresh name in the temporary folder, said in one line, never over another file.
`snapshot` fingerprints a tree without following links or opening odd files; `remove_tree`
removes whatever tested code left behind.

What this file deliberately is not: a file API for the model (repo_tools.py decides what the
model may touch) or a copier of task repositories (task_catalog.fresh_copy).
"""
import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path


def write_atomic(path, text, mode=None):
    """Write `text` (str, as UTF-8 with any lone surrogate kept; or bytes, exactly) to a temp file
    beside `path`, then rename: readers never see half a file. The mode is kept but always
    readable (0644 at least), so sandboxed tests can read it; `mode` sets it exactly instead
    (fix.py: a user's own file keeps its own mode)."""
    path = Path(path)
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    if mode is None:
        mode = (path.stat().st_mode & 0o777 if path.exists() else 0) | 0o644
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode)  # mkstemp makes 0600
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def write_kept(path, text, warn, what):
    """Write `text` to `path` (its folder made if need be) and return where it went. When that
    fails (the folder went away mid-run), write it under a fresh, unique name in the temporary
    folder instead and `warn` one line naming `what` went where: minutes of model time are never
    lost, and no other file is ever overwritten (mkstemp makes the name exclusively)."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
        return str(path)
    except OSError as error:
        why = error.strerror or str(error)
    fd, spare = tempfile.mkstemp(prefix=f"{Path(path).stem}-", suffix=Path(path).suffix)
    os.close(fd)
    write_atomic(spare, text)
    warn(f"warning: cannot write {path} ({why}); {what} is saved in {spare} instead")
    return spare


def snapshot(root, skip_caches=False):
    """{relative path: sha256} of every file under `root`, without following links; a link
    or any other non-regular file is recorded by its kind, never opened."""
    root, found = Path(root), {}
    for here, folders, files in os.walk(root, onerror=lambda error: None):
        if skip_caches:
            folders[:] = [f for f in folders if f not in ("__pycache__", ".pytest_cache")]
        for name in files + [f for f in folders if os.path.islink(os.path.join(here, f))]:
            path = os.path.join(here, name)
            found[Path(path).relative_to(root).as_posix()] = fingerprint(path)
    return found


def fingerprint(path):
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            return f"not a regular file (mode {stat.filemode(info.st_mode)})"
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as error:
        return f"unreadable ({type(error).__name__})"


def remove_tree(folder):
    """Remove a folder whatever tested code left in it (modes 000, deep trees, links)."""
    def allow_and_retry(function, path, _error):
        try:
            os.chmod(os.path.dirname(path), 0o700)
            function(path)
        except OSError:
            pass  # what cannot go stays in the temp folder; the run is not affected
    shutil.rmtree(folder, onerror=allow_and_retry)
