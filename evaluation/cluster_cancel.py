"""A Ray task stopped by the driver's cancel as a local run is stopped by Ctrl-C.

`ray.cancel(ref)` (not forced) raises KeyboardInterrupt in the task's main thread, but only when
that thread next runs Python: Ray simulates a SIGINT (`_thread.interrupt_main`), which, unlike
a real one, does not wake a blocking read. A task waiting on a model server that says nothing
(a long prompt being read) therefore ignored the cancel until its read timed out (300 s); the
driver's wait ran out first, it exited, and Ray then killed the task's worker outright: no
`finally` ran, so its task copy stayed behind on the node. (tests/test_ray_stops.py shows it.)

`stopped_by_cancel()`, around the attempt, makes the cancel do what Ctrl-C does in a local
worker (command_line/ctrl_c.py): a simulated signal still writes to Python's wakeup fd, so a thread
waiting on it closes every model connection and kills every running test at once; the read
returns, the KeyboardInterrupt is raised, and the attempt ends through its `finally` blocks.

What this file deliberately is not: the driver's side of a stop (evaluation/cluster.py cancels
the run's tasks and keeps what finished) or a signal handler of its own (ctrl_c's is used).
"""
import signal
import socket
import threading
from contextlib import contextmanager

from models.closing import close_all
from command_line import ctrl_c
from workspace.pytest_run import kill_running


@contextmanager
def stopped_by_cancel():
    """While the block runs (in a Ray worker's main thread), a cancel ends its waits at once."""
    woken, wakes = socket.socketpair()
    wakes.setblocking(False)  # a signal's write must never block
    handler = signal.signal(signal.SIGINT, ctrl_c.remember_and_interrupt)  # one dropped mid-fork is still obeyed
    wakeup = signal.set_wakeup_fd(wakes.fileno(), warn_on_full_buffer=False)
    watcher = threading.Thread(target=_stop_on_wake, args=(woken,), daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(wakeup)
        signal.signal(signal.SIGINT, handler)
        wakes.close()  # the watcher reads the end of its socket and returns
        watcher.join()
        woken.close()
        ctrl_c.pressed.clear()  # the worker process runs later tasks: this one's stop is not theirs


def _stop_on_wake(woken):
    """Wait for a signal (Ray's cancel) or the block's end; on a signal, stop as Ctrl-C does."""
    if woken.recv(1):
        close_all()
        kill_running()
