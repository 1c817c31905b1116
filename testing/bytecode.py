"""Where the test run's Python processes keep their bytecode when the shell says not to write it.

`share(config)` (conftest.py's pytest_configure) points every process the run starts at one
bytecode folder outside the tree; `remove_the_runs_own(config)` (pytest_unconfigure) removes it
when it was the run's own temporary one.

What this file deliberately is not: anything the product or the sandboxed test runs use (they
keep their own clean environment, workspace/pytest_run.py).
"""
import os
import shutil
import sys
import tempfile


def share(config):
    """The suite starts dozens of Python processes (the command lines it tests, evaluate.py's
    workers, pytest-xdist's), and each compiles every module it imports unless its bytecode is
    cached. A shell that says not to write bytecode (PYTHONDONTWRITEBYTECODE: no __pycache__ in
    the tree) would have every one of them compile the project, and rewrite every test's asserts,
    again: the bytecode goes to one folder outside the tree instead (PYTHONPYCACHEPREFIX), which
    every process the run starts shares, kept in the user's cache folder for the next run (17 of
    125 CPU-seconds of a run, measured), or a folder the run removes when there is no such place.
    The sandboxed test runs keep their own clean environment (workspace/pytest_run.py), so none
    of this reaches the code under test."""
    if hasattr(config, "workerinput") or not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return  # a pytest-xdist worker (its controller did this), or bytecode is cached as usual
    if "PYTHONPYCACHEPREFIX" not in os.environ:
        os.environ["PYTHONPYCACHEPREFIX"] = _kept_folder() or _run_folder(config)
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    sys.pycache_prefix, sys.dont_write_bytecode = os.environ["PYTHONPYCACHEPREFIX"], False


def _kept_folder():
    """~/.cache/coding-loop/pycache (or under $XDG_CACHE_HOME): the user's own, as pip keeps its
    cache; None when it cannot be made. Not a shared temporary folder: bytecode found there is
    run, so no one else may be able to write it."""
    folder = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "coding-loop", "pycache")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        return folder if os.access(folder, os.W_OK) else None
    except OSError:
        return None


def _run_folder(config):
    config.coding_loop_pycache = tempfile.mkdtemp(prefix="coding-loop-pycache-")  # removed at the run's end
    return config.coding_loop_pycache


def remove_the_runs_own(config):
    if getattr(config, "coding_loop_pycache", None):
        shutil.rmtree(config.coding_loop_pycache, ignore_errors=True)
