"""Run the sample's tests as untrusted code: one fixed pytest command, bounded in every way.

`run_pytest(root, ...)` runs the command in a clean environment, inside the sandbox when
there is one (sandbox.py builds that command line), with resource limits, a timeout that
kills the whole process group, and only the tail of the output kept; then it reads the
counts from pytest's summary line.

What this file deliberately is not: a general process runner. Nothing in the command comes
from the model.
"""
import os
import re
import signal
import subprocess
import sys
import threading

import sandbox

OUTPUT_CHARS = 4000
TAIL_BYTES = 16_000  # enough for the last 4,000 characters of any UTF-8 text
# A fixed command: no bytecode, no cache, no config from parent folders, only tests/.
PYTEST_ARGS = ("-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.devnull,
               "--rootdir", ".", "tests")
# Nothing inherited: API keys, tokens and PYTHON* settings stay outside.
CLEAN_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
             "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def run_pytest(root, timeout, sandbox_name):
    """Return {"exit_code", "output", "passed", "failed", "errors", "timed_out"} for `root`."""
    command = [sys.executable, *PYTEST_ARGS]
    if sandbox_name == "bubblewrap":
        sandbox.prepare_workspace(root)
        command = sandbox.wrap(command, root)
    env = {**CLEAN_ENV, "HOME": str(root)}
    limits = sandbox.resource_limits(cpu_seconds=int(timeout) + 5)
    exit_code, output, timed_out = run_bounded(command, root, env, timeout, limits)
    output = _portable(output, root)[-OUTPUT_CHARS:]
    return {"exit_code": exit_code, "output": output, **_counts(output), "timed_out": timed_out}


def run_bounded(command, cwd, env, timeout, limits):
    """Return (exit_code, output_tail, timed_out) for `command`."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True,  # its own group, so we can kill all of it
        preexec_fn=lambda: sandbox.apply_limits(limits))
    tail = bytearray()
    reader = threading.Thread(target=_keep_tail, args=(process.stdout, tail), daemon=True)
    reader.start()
    try:
        process.wait(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        # Kill the group even after a clean exit: a test may have left children running.
        _kill_group(process.pid)
        process.wait()
    # A child that escaped the group could keep the pipe open; do not wait on it forever.
    reader.join(timeout=2)
    process.stdout.close()
    return process.returncode, bytes(tail).decode("utf-8", errors="replace"), timed_out


def _keep_tail(pipe, tail):
    # Read everything, keep only the end: a test printing forever costs no memory.
    try:
        while chunk := pipe.read1(65536):
            tail += chunk
            del tail[:-TAIL_BYTES]
    except (OSError, ValueError):
        pass  # the pipe was closed under us after the time was up


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone


def _portable(output, root):
    """The same code gives the same output wherever it runs, so recordings replay exactly:
    pytest's closing "in 0.05s" goes (the model needs counts, not seconds), and the paths
    of this copy and this interpreter become relative or named."""
    output = re.sub(r" in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?$", "", output, flags=re.M)
    output = output.replace(f"{root}/", "")
    if sys.prefix != sys.base_prefix:
        output = output.replace(sys.prefix, "<venv>")
    return output.replace(sys.base_prefix, "<python>")


def _counts(output):
    """Parse pytest's closing summary line ("1 failed, 3 passed") into counts."""
    for line in reversed(output.splitlines()):
        if re.fullmatch(r"\d+ \w+(, \d+ \w+)*", line.strip()):
            counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", line)}
            errors = counts.get("errors", counts.get("error", 0))  # "1 error", "2 errors"
            return {"passed": counts.get("passed", 0), "failed": counts.get("failed", 0), "errors": errors}
    return {"passed": 0, "failed": 0, "errors": 0}
