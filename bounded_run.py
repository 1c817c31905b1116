"""Run one subprocess with a time limit, a bounded output tail, and nothing left behind.

What this file deliberately is not: a sandbox (sandbox.py builds the command line), or a
general process manager. It runs one command, keeps the last bytes it printed, and kills
the whole process group when the time is up or the command is done.
"""
import os
import signal
import subprocess
import threading

import sandbox

TAIL_BYTES = 16_000  # enough for the last 4,000 characters of any UTF-8 text


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
