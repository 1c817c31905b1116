"""Running attempts in worker processes, and stopping every one of them at once.

`run_in_workers(jobs, function, items, on_done)` runs `function(item)` for each item in up to
`jobs` worker processes and calls `on_done(item, result, error)` as each finishes. A worker
holds one item at a time, and gets the next one only from the main process, once it answered:
nothing is queued inside a worker, so a stop leaves nothing for a worker to start.

A worker that dies (out of memory, killed, a crash) loses only the item it was running: its
`on_done` gets a `WorkerDied` error, a fresh worker takes its place, and the others go on.
Ctrl-C (SIGINT) and SIGTERM stop every worker at once: the main process hands out nothing more,
each worker ends its item through its `finally` blocks (the stream closed, the tests' process
group killed, the task copy removed) and exits, and the scratch folder every worker copies its
tasks into is removed, whatever state a killed worker left it in.

What this file deliberately is not: a scheduler or a retry layer (the caller counts a lost item
and the same command retries it), nor concurrent.futures' process pool: there, one dead worker
breaks the pool and fails every item still in it, and a worker whose item was interrupted goes
on to the next item already queued to it.
"""
import multiprocessing
import signal
import sys
import tempfile
from contextlib import contextmanager
from multiprocessing.connection import wait

from command_line import ctrl_c
from workspace.files import remove_tree

GRACE_SECONDS = 5  # what a worker gets to close its stream and kill its tests before SIGKILL

# Callables every new worker runs once, before its first item. The product adds none. A spawned
# worker starts clean, so what the parent process set up is not there: the test suite adds the
# install of its memory of pytest runs (testing/pytest_memo.py) here, and each must be picklable.
WORKER_SETUP = []


class WorkerDied(Exception):
    """A worker process ended before it answered (killed, out of memory, a crash)."""


def _in_worker():
    # Ctrl-C reaches the whole process group: it is the main process's to handle, by stopping
    # the workers. SIGTERM from it ends the item through its `finally` blocks, and the worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _end_worker)


def _end_worker(*_):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: a second one must not cut the cleanup short
    sys.exit(143)


def _serve(connection, function, setup=()):
    """A worker: run each item the main process sends, answer (result, error), until told to stop."""
    _in_worker()
    for step in setup:
        step()
    while True:
        try:
            item = connection.recv()
        except EOFError:  # the main process is gone
            return
        if item is None:
            return
        try:
            answer = (function(item), None)
        except Exception as error:  # the item's failure, not the worker's: say it and go on
            answer = (None, error)
        try:
            connection.send(answer)
        except Exception as error:  # an answer that cannot be pickled: say so instead
            connection.send((None, RuntimeError(f"the answer could not be sent: {type(error).__name__}: {error}")))


class _Worker:
    def __init__(self, context, function):
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, function, tuple(WORKER_SETUP)))
        self.process.start()
        theirs.close()
        self.item = None

    def give(self, item):
        """Hand the worker its item; False when it is gone (the item stays to be handed out)."""
        try:
            self.connection.send(item)
        except OSError:
            self.process.kill()
            self.process.join()
            return False
        self.item = item
        return True

    def answer(self):
        """(item, result, error) once the worker answered or died; the worker is free again."""
        item, self.item = self.item, None
        try:
            if self.connection.poll():
                return (item, *self.connection.recv())
        except (EOFError, OSError):
            pass
        except Exception as error:  # noqa: BLE001 - an answer that cannot be read back
            return item, None, RuntimeError(f"the worker's answer could not be read: {type(error).__name__}: {error}")
        self.process.join()
        return item, None, WorkerDied(f"the worker process {_how(self.process.exitcode)} during this attempt")

    def stop(self):
        if self.process.is_alive():
            self.process.terminate()


def _how(exitcode):
    if exitcode is not None and exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"ended with exit code {exitcode}"


@contextmanager
def stop_on_sigterm():
    """SIGTERM ends this process the way Ctrl-C does (a KeyboardInterrupt), so both stop the
    workers and keep what finished."""
    # Ctrl-C's own handler: remembered as a press is, so one dropped on its way still stops the run.
    previous = signal.signal(signal.SIGTERM, ctrl_c.remember_and_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def scratch_folder():
    """A temporary folder for every worker's task copies, removed however the run ends."""
    folder = tempfile.mkdtemp(prefix="coding-loop-eval-")
    try:
        yield folder
    finally:
        remove_tree(folder)


def run_in_workers(jobs, function, items, on_done):
    """Run function(item) for every item; on_done(item, result, error) as each finishes."""
    context = multiprocessing.get_context("spawn")  # each worker starts clean, not as a copy of this process
    pending, idle, busy = list(items), [], []
    try:
        while pending or busy:
            ctrl_c.check()  # a Ctrl-C dropped while a worker was being started (command_line/ctrl_c.py)
            idle = [worker for worker in idle if worker.process.is_alive()]  # one may have been killed idle
            while pending and (idle or len(busy) < jobs):
                worker = idle.pop() if idle else _Worker(context, function)
                if worker.give(pending[0]):
                    busy.append(worker)
                    pending.pop(0)
            for worker in _answered(busy):
                busy.remove(worker)
                outcome = worker.answer()
                if worker.process.is_alive():
                    idle.append(worker)
                on_done(*outcome)
    except BaseException:
        _stop_now(idle + busy)
        raise
    _close(idle)


def _answered(busy):
    """The busy workers that answered or died, waiting until there is one."""
    ready = set(wait([w.connection for w in busy] + [w.process.sentinel for w in busy]))
    return [w for w in busy if w.connection in ready or w.process.sentinel in ready]


def _close(workers):
    for worker in workers:
        try:
            worker.connection.send(None)
        except OSError:
            pass
    _stop_now(workers, politely=True)


def _stop_now(workers, politely=False):
    """Stop every worker: SIGTERM (unless it was asked to stop), a short grace to clean up, then
    SIGKILL for any left."""
    for worker in workers if not politely else ():
        worker.stop()
    for worker in workers:
        worker.process.join(GRACE_SECONDS)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.connection.close()
