"""A command line as a user runs it: `interruptible()`, for the tests that stop one with Ctrl-C,
and `Terminal`, a command line on a real terminal (a pty) to read and press keys on.

What this file deliberately is not: a check of what the command line prints (the tests do that).
"""
import contextlib
import os
import pty
import select
import signal
import sys
import threading
import time


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
