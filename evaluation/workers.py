"""Running attempts in worker processes, and stopping every one of them at once.

`run_in_workers(jobs, function, items, on_done)` runs `function(item)` for each item in up to
`jobs` processes (a standard `concurrent.futures` executor, so a cluster executor such as Ray's
or Dask's could be dropped in later) and calls `on_done(item, result, error)` as each finishes.
Ctrl-C (SIGINT) and SIGTERM stop every worker at once: no process goes on calling the model's
server, and the scratch folder every worker copies its tasks into is removed, whatever state a
killed worker left it in.

What this file deliberately is not: a scheduler or a retry layer. A worker that dies (out of
memory, killed) loses its attempt; the caller counts it as lost, and running the same command
again retries it.
"""
import multiprocessing
import signal
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager

from workspace.files import remove_tree

GRACE_SECONDS = 5  # what a worker gets to close its stream and kill its tests before SIGKILL


def _in_worker():
    # Ctrl-C reaches the whole process group: it is the main process's to handle, by stopping
    # the workers. SIGTERM from it ends the attempt through its `finally` blocks (the stream is
    # closed, the tests' process group killed, the task copy removed).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


@contextmanager
def stop_on_sigterm():
    """SIGTERM ends this process the way Ctrl-C does (a KeyboardInterrupt), so both stop the
    workers and keep what finished."""
    def interrupt(*_):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, interrupt)
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
    # "spawn": each worker starts clean, not as a copy of this process and its threads.
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_in_worker)
    try:
        futures = {pool.submit(function, item): item for item in items}
        for future in as_completed(futures):
            error = future.exception()
            on_done(futures[future], None if error else future.result(), error)
    except BaseException:
        _stop_now(pool)
        raise
    pool.shutdown()


def _stop_now(pool):
    """Stop every worker: SIGTERM, a short grace to clean up, then SIGKILL for any left."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        if worker.is_alive():
            worker.terminate()
    for worker in workers:
        worker.join(GRACE_SECONDS)
        if worker.is_alive():
            worker.kill()
            worker.join()
