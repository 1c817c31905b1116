"""One attempt as a search: several trajectories of the same loop, side by side, chosen by the tests.

`run_search(task, settings, chat_for, servers, folder=...)` runs `settings.candidates` runs of
the loop, each on its own fresh copy of the task with its own seed, as many at once as the
servers take. After each run its own tests run on its copy. The first candidate that passes
calls the others off (those still waiting never start; running ones stop at their next check,
"cancelled"), unless `all_candidates` (to measure how coverage grows with N). attempt/choosing.py
picks one, and the independent verdict judges it on a fresh copy, as for a single run.

It returns a recording's body: the chosen run's fields at the top, exactly as run_recorded
gives them (so every reader of a recording works unchanged), every candidate that ran under
"candidates", and what the search did under "search".

A stop (Ctrl-C, SIGTERM, SIGHUP) has already closed every candidate's stream and test run
(command_line/ctrl_c.py): each running candidate ends at once, and run_search raises ctrl_c.Interrupted
with a partial body, marked interrupted: the candidates that ended, and those cut off.

What this file deliberately is not: a model (`chat_for(index, url)` builds each candidate's
chat and says its seed) or a scheduler of servers (attempt/servers.py hands out the slots).
"""
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from attempt.choosing import choose, eligible, own_tests, shown_index
from attempt.servers import LOSSES_IN_A_ROW, lost_to_server
from attempt.start import starting
from command_line import ctrl_c
from localizing.ranking import focus_of
from repo_tools import RepoTools
from runs.recording import interrupted_body, record_loop
from workspace.task_catalog import fresh_copy
from workspace.verdict import judge


class CancelChecks:
    """The `cancel` a candidate's loop asks: yes once the search is over (or interrupted). It
    counts the times it said no, so a replay can call the run off at the very same check."""

    def __init__(self, *events):
        self.events, self.said_no = events, 0

    def __call__(self):
        if any(event.is_set() for event in self.events):
            return True
        self.said_no += 1
        return False


def run_search(task, settings, chat_for, servers, *, folder, start=None, all_candidates=False, sandbox_mode="auto",
               on_candidate=None, on_event=None):
    """Run the search; return (the recording body (see the module docstring), the tools of the run
    it shows at the top, whose copy holds its edits), or (None, None) when no candidate could
    start because every server had failed. `start` (attempt/start.py; None: made here) is where
    every candidate starts: the same starting tests and `focus`. `on_event(index, event)` sees
    every candidate's events as they come (from its thread). A stop (Ctrl-C, SIGTERM) raises
    ctrl_c.Interrupted with a partial body: the candidates that ended, and those cut off."""
    start = start or starting(task, folder, settings, sandbox_mode=sandbox_mode)
    search = Search(settings, chat_for, servers, start, Path(folder), all_candidates=all_candidates)
    search.on_event = on_event

    def one(index):
        found = search.candidate(index)
        if found:
            search.ended.append(found[0])
        if found and on_candidate:
            on_candidate(found[0])
        return found

    with ThreadPoolExecutor(settings.candidates, thread_name_prefix="candidate") as pool:
        try:
            ran = [found for found in pool.map(one, range(1, settings.candidates + 1)) if found]
        except BaseException as stop:  # Ctrl-C, SIGTERM: no candidate starts, running ones stop now
            search.call_off()
            if not isinstance(stop, KeyboardInterrupt):
                raise
            raise ctrl_c.Interrupted(interrupted_body(search.partial(), start.head(settings))) from None
    if not ran:  # not one candidate started: every server had failed (the caller's infra failure)
        return None, None
    return _body(start, settings, ran, all_candidates, search.named)


class Search:
    """What every candidate of one search shares: the task, the settings, the servers, whether
    the search is over, and the order candidates start in (by index: with one free slot, the
    search runs them one after another, as a user would expect from N)."""

    def __init__(self, settings, chat_for, servers, start, folder, *, all_candidates=False):
        self.settings, self.chat_for, self.servers, self.start = settings, chat_for, servers, start
        self.task, self.folder, self.all_candidates = start.task, folder, all_candidates
        self.over, self.named = threading.Event(), []  # a candidate passed; the servers that failed
        self.stopping = threading.Event()  # the whole search was interrupted (Ctrl-C, SIGTERM)
        self.started, self.running, self.turn = 0, 0, threading.Condition()
        self.on_event = None  # (index, event) of every candidate, from its thread
        self.ended, self.cut_off = [], []  # the records of candidates that ended, and of those a stop cut off

    def call_off(self):
        """The search was interrupted: no candidate starts, and this returns once the running ones
        have stopped at their next check. It counts them itself: the pool's own shutdown does not
        wait for a thread whose start a Ctrl-C interrupted, though that thread runs (seen under load)."""
        self.stopping.set()
        with self.turn:
            self.turn.wait_for(lambda: self.running == 0)

    def partial(self):
        """What an interrupted search keeps: every candidate that ended or was cut off, by index."""
        records = sorted([*self.ended, *self.cut_off], key=lambda record: record["index"])
        return {"candidates": records, "search": {"candidates": self.settings.candidates, "interrupted": True,
                                                  "ended": len(self.ended), "servers_failed": self.named}}

    def candidate(self, index):
        """(candidate record, its tools) for one trajectory, or None when it never started. A
        run lost to its server is tried again on another; when none is left, the loss is its
        result. The slot is held until its tests have run, so a pass stops the next one starting."""
        def skip():
            return self.stopping.is_set() or (self.over.is_set() and not self.all_candidates)
        lost = None
        with self.turn:
            self.running += 1
            self.turn.wait_for(lambda: self.started >= index - 1)
        try:
            for tries in range(1, len(self.servers.urls) + LOSSES_IN_A_ROW):
                with self.servers.take(skip) as url:
                    self._started(index)
                    if url is None:  # called off, or no server left: a run it lost stays on record
                        return lost
                    record, tools = self._run(index, tries, url)
                    if "tests" in record:
                        return record, tools
                lost = record, tools
            return lost
        finally:
            self._started(index, ended=True)

    def _started(self, index, ended=False):
        with self.turn:
            self.started, self.running = max(self.started, index), self.running - ended
            self.turn.notify_all()

    def _run(self, index, tries, url):
        """One trajectory on a fresh copy, then its own tests; a run lost to the server has none."""
        chat, seed = self.chat_for(index, url)
        tools = RepoTools(fresh_copy(self.task, self.folder / f"candidate-{index}-{tries}"), task=self.task,
                          sandbox_mode=self.start.sandbox_mode)
        checks = CancelChecks(self.over, self.stopping, ctrl_c.pressed)  # pressed: set before the stream is closed
        shown = self.on_event and (lambda event: self.on_event(index, event))
        try:
            run = record_loop(chat, tools, self.settings, self.start.prompt, self.start.tests, cancel=checks,
                              focus=focus_of(self.start.localization), on_event=shown)
        except ctrl_c.Interrupted as stop:
            self.cut_off.append({"index": index, "seed": seed, "server": url, **stop.partial})
            raise
        record = {"index": index, "seed": seed, "server": url, **run}
        if lost_to_server(run["stop"]):
            if self.servers.lost(url, run["stop"].get("error")):
                self.named.append({"url": url, "error": str(run["stop"].get("error"))[:300]})
            return record, tools
        self.servers.answered(url)
        if run["stop"]["reason"] == "cancelled":
            record["cancelled_after_checks"] = checks.said_no
        if self.stopping.is_set():  # interrupted: the attempt is dropped, no more test runs
            return record, tools
        tests = tools.run_tests()
        if ctrl_c.pressed.is_set():  # a stop killed these tests: the run is kept, its tests are not
            self.cut_off.append({**record, "tests_interrupted": True})
            raise KeyboardInterrupt
        record.update(own_tests(tools, tests))
        if eligible(record, self.task, self.start.tests) and not self.all_candidates:
            self.over.set()
        return record, tools


def _body(start, settings, ran, all_candidates, named):
    """The recording body: the chosen (or closest) candidate's run and verdict at the top."""
    records = sorted((record for record, _ in ran), key=lambda r: r["index"])
    tools_of = {record["index"]: tools for record, tools in ran}
    tried = [r for r in records if "tests" in r]  # not lost to a server
    chosen, why = choose(tried, start.task, start.tests)
    shown = shown_index(records, chosen, start.tests)
    if all_candidates:  # every candidate that passed is judged, so the coverage curve is the verdict's
        for record in tried:
            if eligible(record, start.task, start.tests):
                record["verdict"] = judge(tools_of[record["index"]], start.tests)["verdict"]
    for record in records:
        record["chosen"] = record["index"] == chosen
    top = next(r for r in records if r["index"] == shown)
    search = {"candidates": settings.candidates, "ran": len(tried), "all_candidates": all_candidates,
              "chosen": chosen, "shown": shown, "why": why, "servers_failed": named}
    body = {**start.head(settings), **judge(tools_of[shown], start.tests), "turns": top["turns"],
            "events": top["events"], "stop": top["stop"], "timings": top["timings"], "candidates": records,
            "search": search}
    return body, tools_of[shown]
