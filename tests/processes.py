"""Probes of the process table, for the sandbox and run_tests tests: a test body to run inside the
sandbox, test code that starts a long-lived grandchild, and watching for tagged processes; and
two items for evaluation/workers.py's pool: one that kills the worker process it runs in, and one
that runs a copy's tests in it. Beside it: network.py (a port nothing listens on, a server that
never answers) and terminal.py (a command line on a real terminal, and Ctrl-C).

What this file deliberately is not: a sandbox (workspace/sandbox.py is); it only looks.
"""
import contextlib
import os
import signal
import threading
import time
from pathlib import Path


def write_probe(workspace, body):
    """Replace the sample's tests with one test whose body is `body`: code we run through
    run_tests to see what the sandbox lets through (it is ours, not the model's)."""
    (workspace / "tests/test_path_rules.py").unlink()
    lines = "\n".join("    " + line for line in body.strip().splitlines())
    (workspace / "tests/test_probe.py").write_text(
        f"import os, socket, sys, time, subprocess\n\n\ndef test_probe():\n{lines}\n")


def grandchild(marker, escape=False):
    """Test code that starts a long-lived grandchild tagged with `marker`."""
    session = ", start_new_session=True" if escape else ""
    return (f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '{marker}']{session})\n"
            f"time.sleep(0.2)\n")


def running_with(marker):
    """Processes on this machine whose command line holds `marker` (sandboxed ones included:
    the host sees every PID namespace)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(int(entry))
        except OSError:
            continue
    return found


def gone_soon(marker, seconds=3.0):
    """True once no process carries `marker` (a SIGKILL takes a moment to land)."""
    ends = time.monotonic() + seconds
    while running_with(marker):
        if time.monotonic() > ends:
            return False
        time.sleep(0.05)
    return True


@contextlib.contextmanager
def watching(marker):
    """Poll the process table while the block runs; the list gets True once `marker` was seen,
    so a test can tell "killed" from "never started"."""
    seen, stop = [], threading.Event()

    def poll():
        while not stop.is_set() and not seen:
            if running_with(marker):
                seen.append(True)
            stop.wait(0.05)
    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join()


def killed_in_the_second_item(item):
    """An item for evaluation/workers.py's pool: the second kills its worker, as the kernel's
    out-of-memory killer would (no cleanup, no answer). It lives here, not in a test file: a
    worker starts afresh and imports the module that defines it, and this one imports nothing."""
    if item == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)
    return item


def a_copys_tests_run_in_a_worker(copy):
    """(what its tests gave, (runs run, runs answered) by the memo this worker was set up with):
    an item for evaluation/workers.py, as an attempt's tests are run there."""
    from repo_tools import RepoTools
    from workspace import pytest_run
    from workspace.task_catalog import load_task
    result = RepoTools(copy, task=load_task("path_rules")).run_tests()
    memo = getattr(pytest_run.run_bounded, "__self__", None)  # None: this worker has no memo
    return result, memo and (memo.ran, memo.answered)
