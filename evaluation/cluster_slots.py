"""The model servers' slots on a Ray cluster: one small actor counts them for the whole run.

`ClusterServers(urls, parallel)` has the very interface of attempt/servers.py's `Servers`
(`take(skip)`, `working()`, `lost(url, why)`, `answered(url)`, `failures()`), so a single run
and a search's candidates take their slots from it unchanged, on whichever node they run. The
lock files of the local pool cannot do this: they live in one machine's folder. Here one actor
(`SlotKeeper`, in the driver's job) holds the count of requests in flight on each server, hands
the least busy working one out, and remembers which servers failed (two runs lost in a row, as
`Servers` counts them) and why; the driver names each once.

A slot is held by an attempt's run (`holder`: its attempt id and a token drawn when that run
started on its node). A node that dies takes its slots' releases with it; Ray then runs the
attempt again, and that new run's first `take` frees every slot the dead one held, so a
crashed attempt never shrinks a server's capacity. The driver also frees an attempt's slots when
it returns, however it ended.

What this file deliberately is not: a scheduler of attempts (Ray places them on nodes) or a
health check: like `Servers`, it counts the requests it handed out, nothing more.
"""
import time
import uuid
from contextlib import contextmanager

import ray

from attempt.servers import LOSSES_IN_A_ROW, WAIT_SECONDS


@ray.remote(num_cpus=0)
class SlotKeeper:
    """In flight per server, losses in a row, failures, and who holds what."""

    def __init__(self, urls, parallel):
        self.urls, self.parallel = list(urls), parallel
        self.held = {url: [] for url in self.urls}  # url -> holders, one entry per slot in use
        self.losses, self.failed = {}, {}

    def take(self, holder):
        """The least busy working server with a free slot (taken for `holder`), or None; and
        whether any server still works."""
        self._forget_older_runs(holder)
        working = [url for url in self.urls if url not in self.failed]
        free = [url for url in working if len(self.held[url]) < self.parallel]
        if not free:
            return None, bool(working)
        url = min(free, key=lambda u: (len(self.held[u]), self.urls.index(u)))
        self.held[url].append(holder)
        return url, True

    def release(self, url, holder):
        if holder in self.held.get(url, []):
            self.held[url].remove(holder)

    def release_attempt(self, attempt_id):
        """Every slot any run of this attempt still holds (it returned, or its node died)."""
        for url in self.urls:
            self.held[url] = [h for h in self.held[url] if h[0] != attempt_id]

    def _forget_older_runs(self, holder):
        attempt_id, token = holder
        for url in self.urls:  # a run of the same attempt before this one died with its node
            self.held[url] = [h for h in self.held[url] if h[0] != attempt_id or h[1] == token]

    def lost(self, url, why):
        """Count a lost run; True for the caller that marked the server failed (who names it)."""
        self.losses[url] = self.losses.get(url, 0) + 1
        if self.losses[url] >= LOSSES_IN_A_ROW and url not in self.failed:
            self.failed[url] = str(why)[:500]
            return True
        return False

    def answered(self, url):
        self.losses.pop(url, None)

    def failures(self):
        return {url: self.failed[url] for url in self.urls if url in self.failed}

    def in_flight(self):
        return {url: len(self.held[url]) for url in self.urls}


class ClusterServers:
    """attempt/servers.py's `Servers`, counted by a SlotKeeper; it pickles, so it travels with a Job."""

    def __init__(self, urls, parallel, keeper, attempt_id=None, token=None):
        self.urls, self.parallel, self.keeper = list(urls), parallel, keeper
        self.holder = (attempt_id, token or uuid.uuid4().hex)

    def for_run(self, attempt_id):
        """The same servers, for one run of one attempt (on the node that runs it)."""
        return ClusterServers(self.urls, self.parallel, self.keeper, attempt_id)

    @contextmanager
    def take(self, skip=lambda: False):
        """Hold a slot on the least busy working server while the block runs; yield its URL
        (None when `skip()` is true before one is free, or when every server has failed)."""
        while True:
            if skip():
                yield None
                return
            url, any_working = ray.get(self.keeper.take.remote(self.holder))
            if url or not any_working:
                break
            time.sleep(WAIT_SECONDS)
        if url is None:
            yield None
            return
        try:
            yield url
        finally:
            ray.get(self.keeper.release.remote(url, self.holder))

    def working(self):
        failed = self.failures()
        return [url for url in self.urls if url not in failed]

    def lost(self, url, why):
        return ray.get(self.keeper.lost.remote(url, why))

    def answered(self, url):
        ray.get(self.keeper.answered.remote(url))

    def failures(self):
        return ray.get(self.keeper.failures.remote())

    def release_attempt(self, attempt_id):
        ray.get(self.keeper.release_attempt.remote(attempt_id))
