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

What this file deliberately is not: the place that decides when SIGTERM counts as a Ctrl-C
(evaluation/workers.py:stop_on_sigterm installs the same handler for it) or what a command
prints when interrupted (each command's own `main` does).
"""
import signal
import sys
import threading

pressed = threading.Event()  # set by the handler; read from any thread (a search's candidates)


def remember_and_interrupt(signum, frame):
    """The handler: the press is remembered, then interrupts the main thread as Ctrl-C does."""
    pressed.set()
    raise KeyboardInterrupt


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
