"""Probes of the process table and the network, for the sandbox and run_tests tests: a test
body to run inside the sandbox, a port nothing listens on, a server that takes connections and
never answers, and watching for tagged processes;
`interruptible()`, for the tests that stop a command line with Ctrl-C; `Terminal`, a command
line on a real terminal (a pty) to read and press keys on; an item that kills
the worker process it runs in, and one that runs a copy's tests in it.

What this file deliberately is not: a sandbox (workspace/sandbox.py is); it only looks.
"""
import contextlib
import os
import pty
import select
import signal
import socket
import sys
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


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # bound, then closed: nothing listens there



@contextlib.contextmanager
def silent_server():
    """A loopback server that accepts every connection and never says a byte (a hung server, or a
    proxy in front of a dead one): yields (its URL, the monotonic times it accepted connections)."""
    listener, accepted, held, stop = socket.socket(), [], [], threading.Event()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.05)  # so the thread sees `stop`: closing a socket does not wake accept()

    def serve():
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            accepted.append(time.monotonic())
            held.append(connection)
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", accepted
    finally:
        stop.set()
        thread.join()
        for connection in [listener, *held]:
            connection.close()


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


@contextlib.contextmanager
def interruptible():
    """Children started in this block take Ctrl-C (SIGINT) as a terminal's shell starts them,
    even when the suite itself runs with SIGINT ignored (a background job, nohup, some CI
    runners): an ignored signal stays ignored across exec, a handled one goes back to default."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


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


def grandchild(marker, escape=False):
    """Test code that starts a long-lived grandchild tagged with `marker`."""
    session = ", start_new_session=True" if escape else ""
    return (f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '{marker}']{session})\n"
            f"time.sleep(0.2)\n")


class Terminal:
    """A command line run on a real terminal (a pty, as a user's shell runs it): everything it
    wrote, the keys a user presses (Ctrl-C is b"\\x03": the terminal sends the SIGINT), the
    terminal closed (SIGHUP), and how it exited."""

    def __init__(self, argv, cwd, env):
        with interruptible():  # Ctrl-C reaches it even when the suite runs with SIGINT ignored
            self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the command line, its terminal the pty
            try:
                os.chdir(cwd)
                os.execve(sys.executable, [sys.executable, *argv], env)
            finally:
                os._exit(127)
        self.output, self.status, self.open = bytearray(), None, True
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        # Reads wait at most 50 ms, and the fd is closed here, between them: a close from
        # another thread while a read waits would not close the terminal until the read returned.
        while self.open:
            if not select.select([self.fd], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # the child ended (EIO)
                break
            if not data:
                break
            self.output += data
        os.close(self.fd)

    def wait_for(self, found, seconds=60):
        """True once `found(bytes written so far)` is true; False after `seconds` or at exit."""
        ends = time.monotonic() + seconds
        while time.monotonic() < ends and self.exit_code() is None:
            if found(bytes(self.output)):
                return True
            time.sleep(0.05)
        return found(bytes(self.output))

    def press(self, keys):
        os.write(self.fd, keys)

    def hang_up(self):
        """Close the terminal, as closing its window does: the kernel sends SIGHUP."""
        self.open = False
        self.reader.join()

    def exit_code(self, seconds=0.0):
        """Its exit code (-N for a signal), waiting at most `seconds`; None while it runs."""
        ends = time.monotonic() + seconds
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
            elif time.monotonic() >= ends:
                return None
            else:
                time.sleep(0.02)
        return self.status

    def close(self):
        if self.exit_code() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.exit_code(10)
        self.open = False
        self.reader.join()
