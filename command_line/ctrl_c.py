"""Ctrl-C that is never lost: the press is remembered, and the long loops look at it.

Python runs a signal's handler at the main thread's next bytecode. When that bytecode belongs
to a hook Python itself calls (logging's lock release around every fork, a `__del__`), the
KeyboardInterrupt the handler raises is printed as "Exception ignored" and dropped, and the
command goes on as if never told. Every test run forks, so this is not rare: replay.py exited
0 after a Ctrl-C about once in 40 tries on a busy machine. So the handler also remembers the
press (`pressed`), and the loops that run for long (each recording replayed, each event of a
run) call `check()`, which raises the KeyboardInterrupt again where it cannot be dropped. The
dropped one is not printed either (its "Exception ignored ... Traceback" would reach the user's
terminal): Python hands what it drops to `sys.unraisablehook`, and ours stays quiet about a
KeyboardInterrupt that was remembered.

A press also closes every open model connection at once (models/closing.py): the main thread
is interrupted by the signal itself, but a search's candidates stream in threads, which would
otherwise wait for their server's next byte (minutes, while it reads a long prompt).
`stop_on_signals()` makes SIGTERM (a `kill`, a cancelled CI job) and SIGHUP (the terminal was
closed) stop a command exactly as Ctrl-C does.

What this file deliberately is not: what a command prints or keeps when interrupted (each
command's own `main` does), or evaluate.py's worker pool (evaluation/workers.py).
"""
import signal
import sys
import threading
from contextlib import contextmanager

from models.closing import close_all
from workspace.pytest_run import kill_running

pressed = threading.Event()  # set by the handler; read from any thread (a search's candidates)


def remember_and_interrupt(signum, frame):
    """The handler: the press is remembered, then interrupts the main thread as Ctrl-C does."""
    pressed.set()
    close_all()  # every model stream, in every thread, ends now
    kill_running()  # and every test run (a candidate's, in its thread)
    raise KeyboardInterrupt


class Interrupted(KeyboardInterrupt):
    """A stop that cut work off, carrying what it had done (`partial`: a run's fields, or a whole
    partial recording body) for the command line to keep."""

    def __init__(self, partial):
        super().__init__()
        self.partial = partial


@contextmanager
def stop_on_signals(signals=(signal.SIGTERM, signal.SIGHUP)):
    """SIGTERM and SIGHUP stop this process the way Ctrl-C does (a remembered KeyboardInterrupt),
    so each keeps what finished and removes its copies. One already ignored (`nohup`) stays so."""
    previous = {}
    for signum in signals:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, remember_and_interrupt)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def remember():
    """Install the remembering handler for Ctrl-C, unless Ctrl-C is ignored (a background job,
    nohup) or already handled otherwise: those stay as they are."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, remember_and_interrupt)
        sys.unraisablehook = quiet_when_remembered


def quiet_when_remembered(unraisable):
    """For what Python could not raise (in a __del__, an at-fork hook): a remembered press is
    raised again by `check()`, so it is not printed; anything else is, as Python prints it."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and pressed.is_set():
        return
    sys.__unraisablehook__(unraisable)


def check():
    """Raise KeyboardInterrupt if Ctrl-C was pressed: a no-op unless a press was dropped on its
    way (one that was not has already ended the work this is called from)."""
    if pressed.is_set():
        raise KeyboardInterrupt


def what_ran(partial):
    """A few words for what an interrupted run's partial recording holds."""
    if "candidates" not in partial:
        turns = sum(1 for event in partial.get("events", []) if event.get("type") == "model_start")
        return f"the run so far ({turns} turn(s))"
    ended = partial.get("search", {}).get("ended", 0)
    return f"the search so far ({ended} candidate(s) ended, {len(partial['candidates']) - ended} cut off)"


def say_stopped(line):
    """The one line a stopped command ends with, on stderr; a terminal already gone (SIGHUP) is no error."""
    try:
        print(f"\n{line}", file=sys.stderr, flush=True)
    except OSError:
        pass
