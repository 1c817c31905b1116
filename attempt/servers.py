"""The model servers a search spreads its candidates over, at most `parallel` at once on each.

`Servers(urls, parallel, folder)` hands out one slot at a time: `with servers.take(skip) as url`
blocks until a working server has a free slot, the least busy one first, and gives its URL
(None when `skip()` said to stop waiting, or no server works any more). A slot is a lock file
in `folder` held with flock, so candidates in threads of one process and attempts in worker
processes of one evaluation share the same count, and a worker that dies releases its slots
with it. A server that loses two runs in a row (`lost(url, why)`; `answered(url)` starts the
count again) is marked as failed in the same folder: the first to mark it says so (it is named
once), and no one is sent to it again. `lost_to_server(stop)` and `lost_search(body)` say when a
run, or a whole search, was lost to the servers rather than failed by the model.

What this file deliberately is not: a load balancer or a health check. It counts the
requests it sent; what else the server is doing, it cannot see.
"""
import fcntl
import os
import time
from contextlib import contextmanager
from pathlib import Path

WAIT_SECONDS = 0.2  # between looks for a free slot: a turn of a model takes seconds, not less
# Runs a server may lose in a row before it counts as failed. One loss can be the moment's (a
# dropped connection, a server busy restarting answers the next one); a second, with nothing
# answered between, is the server.
LOSSES_IN_A_ROW = 2


def lost_to_server(stop):
    """Was the run lost to the server (down, gone, the model missing), not failed by the model?
    The adapters turn every failure of the server or the connection into ModelUnavailable;
    anything else that stopped the stream would happen again on every retry, so it is the run's
    result (so are the adapters' own kinds, recorded under their names: DeadlinePassed, and
    RequestTooLong, a request longer than the server's context)."""
    return stop.get("reason") == "model_error" and str(stop.get("error", "")).startswith("ModelUnavailable")


def lost_search(body):
    """Why a search says nothing about the model, or None. One that chose no candidate while some
    of its candidates were lost to the servers (or never started, every server having failed) is
    the servers' failure: the lost ones might have passed. One that chose a candidate stands."""
    search = body.get("search")
    if not isinstance(search, dict) or search.get("chosen") is not None:
        return None
    lost = sum(lost_to_server(candidate["stop"]) for candidate in body["candidates"])
    lost += search["candidates"] - len(body["candidates"])  # never started: no server was left
    if not lost:
        return None
    named = "; ".join(f"{server['url']}: {server['error']}" for server in search.get("servers_failed") or [])
    return (f"the search lost {lost} of its {search['candidates']} candidates to its servers and chose none"
            + (f" ({named})" if named else ""))


class Servers:
    """Slots on each server, shared through lock files in `folder`."""

    def __init__(self, urls, parallel, folder):
        self.urls, self.parallel, self.folder = list(urls), parallel, Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def take(self, skip=lambda: False):
        """Hold a slot on the least busy working server while the block runs; yield its URL
        (None when `skip()` is true before one is free, or when every server has failed)."""
        while True:
            if skip() or not self.working():
                yield None
                return
            held = self._take_least_busy()
            if held:
                break
            time.sleep(WAIT_SECONDS)
        url, handle = held
        try:
            yield url
        finally:
            handle.close()  # closing the file releases the lock

    def working(self):
        return [url for n, url in enumerate(self.urls) if not (self.folder / f"failed-{n}").exists()]

    def lost(self, url, why):
        """Count a run `url` lost; at LOSSES_IN_A_ROW in a row it is marked failed. True for the
        caller that marked it (who names it)."""
        with open(self.folder / f"lost-{self.urls.index(url)}", "a+") as handle:  # one counter, locked
            fcntl.flock(handle, fcntl.LOCK_EX)
            handle.seek(0)
            count = len(handle.read()) + 1
            handle.write("x")
        return self.failed(url, why) if count >= LOSSES_IN_A_ROW else False

    def answered(self, url):
        """A run on `url` ended without losing it to the server: its count of losses starts again."""
        (self.folder / f"lost-{self.urls.index(url)}").unlink(missing_ok=True)

    def failed(self, url, why):
        """Mark `url` as failed; True for the caller that marked it first (who names it)."""
        try:
            fd = os.open(self.folder / f"failed-{self.urls.index(url)}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as handle:
            handle.write(str(why)[:500])
        return True

    def failures(self):
        """{url: why} of every server marked as failed, in the order the flags name them."""
        found = {}
        for n, url in enumerate(self.urls):
            try:
                found[url] = (self.folder / f"failed-{n}").read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
        return found

    def _take_least_busy(self):
        """(url, held lock file) on the working server with the fewest slots in use, or None."""
        free = {}
        for n, url in enumerate(self.urls):
            if url in self.working():
                free[n] = [slot for slot in range(self.parallel) if self._is_free(n, slot)]
        for n in sorted(free, key=lambda n: (-len(free[n]), n)):
            for slot in free[n]:
                handle = self._lock(n, slot)
                if handle:
                    return self.urls[n], handle
        return None

    def _is_free(self, n, slot):
        handle = self._lock(n, slot)
        if handle:
            handle.close()
        return handle is not None

    def _lock(self, n, slot):
        handle = open(self.folder / f"slot-{n}-{slot}.lock", "a")  # noqa: SIM115 - held by the caller
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return None
        return handle
