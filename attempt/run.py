"""One attempt at a task, start to end: what record_run.py, fix.py and evaluate.py's workers call.

`run_attempt(attempt, start_tests=None, on_event=None, localization=None)` starts once
(start.py: one copy, its tests, the ranking the settings ask for), runs `settings.candidates`
candidates, and labels the recording once. One candidate is a single run on that copy, written
exactly as ever (format coding-loop-recording/1, no `candidates`); more are a search
(side_by_side.py), chosen by the tests (choosing.py). Either way the independent verdict judges
the run at the top, each run takes a slot on the least busy server (servers.py: a server that
loses runs is named and left out), and the label says what the server said of the model, the
server that answered, and the options its adapter sent: read from the chat that ran, never from
one built again to ask.

`on_event(event)` hears the attempt as it goes (command_line/attempt_view.py prints it):
`start_tests` (`result`) and `localization`, when found here; a single run's loop events as they
come; for a search, `search` (`candidates`, `seeds`, `parallel`, `servers`, `greedy`,
`max_turns`) before it, each candidate's loop events with its `candidate` index (from its own
thread), `candidate_ended` (`candidate`: its record) and `chosen` (`why`).

It returns `Ran(recording, tools)` (the tools of the run it shows: its copy holds the edits), or
None when every server had failed before one run could start. A stop (Ctrl-C, SIGTERM, SIGHUP)
raises command_line.ctrl_c.Interrupted with the partial recording, labelled, marked interrupted.

What this file deliberately is not: a command line (it prints nothing, asks no server whether it
serves the model: adapters.check_servers does, first) or a judge (workspace/verdict.py is).
"""
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from attempt.adapters import run_chat, sends_greedily, seed_for
from attempt.servers import Servers, lost_to_server
from attempt.side_by_side import run_search
from attempt.start import starting
from command_line import ctrl_c
from runs.recording import run_recorded
from runs.recording_file import FORMAT


@dataclass(frozen=True)
class Attempt:
    """One attempt: everything it runs with, as plain values (it crosses to worker processes)."""
    task: object            # workspace.task_catalog.Task, or fix.py's task of a user's repository
    settings: object        # agent_loop.LoopSettings: `candidates` runs of the loop
    model: object           # models.choice.ModelChoice, its servers asked first (adapters.check_servers)
    info: dict              # what the server said of the model: {"name", "digest"}
    folder: object          # where its copies go (the caller removes it)
    sandbox_mode: str = "auto"
    all_candidates: bool = False  # every candidate runs, even after one passed (to measure coverage)
    number: int = 1         # which attempt of this choice (evaluate.py's k): its runs' seeds follow the earlier ones'
    servers: object = None  # slots shared with other attempts (evaluate.py); None: its own


class Ran(NamedTuple):
    recording: dict
    tools: object  # repo_tools.RepoTools of the run the recording shows: its copy holds the edits


def run_attempt(attempt, start_tests=None, on_event=None, localization=None):
    """Run one attempt (see the module docstring)."""
    emit = on_event or (lambda event: None)
    start = starting(attempt.task, attempt.folder, attempt.settings, sandbox_mode=attempt.sandbox_mode,
                     tests=start_tests, localization=localization, say=emit)
    servers = attempt.servers or Servers(attempt.model.urls or ["scripted"], attempt.model.parallel or 1,
                                         Path(attempt.folder) / "servers")
    chats = Chats(attempt)
    try:
        if attempt.settings.candidates == 1:  # a single run: the recording as it always was
            ran = _single_run(attempt, start, servers, chats, emit)
        else:
            ran = _search(attempt, start, servers, chats, emit)
    except ctrl_c.Interrupted as stop:  # what ran is kept, labelled as the run it would have shown
        raise ctrl_c.Interrupted(chats.label(stop.partial, 1)) from None
    if ran is None:
        return None
    body, tools, shown = ran
    return Ran(chats.label(body, shown), tools)


def _single_run(attempt, start, servers, chats, emit):
    """(body, tools, 1) of one run on the start copy, on the least busy server; None when none is left."""
    with servers.take() as url:
        if url is None:
            return None
        body = run_recorded(chats(1, url)[0], start.tools, attempt.settings, prompt=start.prompt, on_event=emit,
                            start_tests=start.tests, localization=start.localization)
    # The start ran before the run (start.py): its time is the one the recording keeps.
    body["timings"]["start_tests_s"] = start.seconds
    if lost_to_server(body["stop"]):  # marked for every later attempt of the same servers
        servers.lost(url, body["stop"].get("error"))
    else:
        servers.answered(url)
    return body, start.tools, 1


def _search(attempt, start, servers, chats, emit):
    """(body, tools of the run shown, its index) of a search; None when no candidate could start."""
    n, choice = attempt.settings.candidates, attempt.model
    emit({"type": "search", "candidates": n, "seeds": [seed_for(choice, chats.number(1)),
                                                         seed_for(choice, chats.number(n))],
          "parallel": choice.parallel or 1, "servers": len(servers.urls), "greedy": sends_greedily(choice),
          "max_turns": attempt.settings.max_turns})
    body, tools = run_search(attempt.task, attempt.settings, chats, servers, folder=Path(attempt.folder) / "search",
                             start=start, all_candidates=attempt.all_candidates,
                             on_candidate=lambda record: emit({"type": "candidate_ended", "candidate": record}),
                             on_event=lambda index, event: emit({**event, "candidate": index}))
    if body is None:
        return None
    emit({"type": "chosen", "why": body["search"]["why"]})
    return body, tools, body["search"]["shown"]


class Chats:
    """The chat of each run of one attempt (`chats(index, url)` -> (chat, seed): side_by_side.py's
    `chat_for`), kept, so the label says what the run it shows was sent."""

    def __init__(self, attempt):
        self.attempt, self.made = attempt, {}

    def number(self, index):
        """Attempt k's candidate i of N is run (k-1)·N + i of its choice: every run its own seed."""
        return (self.attempt.number - 1) * self.attempt.settings.candidates + index

    def __call__(self, index, url):
        attempt = self.attempt
        chat, seed, about = run_chat(attempt.model, attempt.task, attempt.settings, self.number(index), url)
        self.made[index] = (chat, about, url)
        return chat, seed

    def label(self, body, index):
        """The whole recording of `body`, whose top run is candidate `index`'s."""
        choice = self.attempt.model
        chat, about, url = self.made.get(index, (None, choice.about, choice.urls[0] if choice.urls else None))
        adapter = chat.recorded() if hasattr(chat, "recorded") else {}  # a built-in scripted model sends none
        return recording_of(body, source=choice.source, about=about, model=self.attempt.info,
                            server=choice.server(url), adapter=adapter)


def recording_of(body, *, source, model, server, adapter=None, about=None):
    """The whole recording: its head (format, source, what it is about, model, server), then the
    body, with the adapter's own settings (its options) beside the loop's."""
    head = {"format": FORMAT, "source": source, **({"about": about} if about else {}),
            "model": {"name": model["name"], "digest": model.get("digest")}, "server": server}
    return {**head, **body, "settings": {**body["settings"], **(adapter or {})}}
