"""Replay recordings offline: saved chunks stand in for the model, everything else is real.

    python replay.py                 # every file in recordings/, real tools and real pytest
    python replay.py FILE [FILE ...]
    python replay.py --served        # recorded tool results instead: no subprocess at all

`ReplayModel` plays turn i's saved chunks for request i and, by default, checks that the
request equals the recorded one, so a change to the loop, the prompt or a tool that alters
what the model would have seen is caught and named. `replay(path)` runs a recording on a
fresh copy of its task's repository with the real tools and pytest; `replay(path,
served=True)` serves each tool's recorded result and requires the very same events. The CLI
exits non-zero when any replay differs from its recording.

What this file deliberately is not: a model. It cannot answer a request it has not seen.
"""
import importlib.util
import sys
import tempfile
from pathlib import Path

from agent_loop import agent_events
from repo_tools import RepoTools, schemas_for
from runs.printer import OneLineParser, Printer, clean, fail, result_line, run_cli
from runs.recording import load, loop_settings, plain_copy, run_recorded, sample_hashes
from runs.replay_check import RequestDrift, check_request, check_tools, event_differences, outcome_differences
from workspace import sandbox
from workspace.task_catalog import fresh_copy
from workspace.user_task import recorded_task

RECORDINGS = Path(__file__).parent / "recordings"


class ReplayedModelError(Exception):
    """The recorded model failed here; the replay fails the same way."""


class ReplayModel:
    """A chat callable that answers request i with the recording's turn i (a dict or a path)."""

    def __init__(self, recording, check_requests=True):
        recording = recording if isinstance(recording, dict) else load(recording)
        self.turns, self.check_requests, self.served = recording["turns"], check_requests, 0
        self.schemas = recording["tools"]  # the schemas the model was shown: part of every request

    @property
    def unplayed(self):
        return len(self.turns) - self.served

    def __call__(self, messages, tool_schemas):
        self.served += 1
        if self.served > len(self.turns):
            raise RequestDrift(f"request {self.served} goes beyond the recording's {len(self.turns)} turns")
        turn = self.turns[self.served - 1]
        if self.check_requests:
            check_request(self.served, turn["request"]["messages"], messages)
            check_tools(self.served, self.schemas, tool_schemas)
        return self._stream(turn)

    def _stream(self, turn):
        for chunk in turn["chunks"]:
            yield plain_copy(chunk)
        if "error" in turn:
            raise ReplayedModelError(turn["error"])


class ServedTools:
    """Tools that answer each call with its recorded result, in order; nothing runs. The schemas
    are today's for the recording's task, so a changed schema shows up as drift."""

    def __init__(self, recording):
        self.schemas = schemas_for(recorded_task(recording, tree=False))
        starts = {(e.get("turn"), e.get("index"), bool(e.get("by_harness"))): e
                  for e in recording["events"] if e["type"] == "tool_start"}
        self.queue = [(starts.get((e.get("turn"), e.get("index"), bool(e.get("by_harness"))), {}), e["result"])
                      for e in recording["events"] if e["type"] == "tool_result"]

    def invoke(self, name, arguments, *, time_left=None):
        # Calls the loop refused never reach us, so skip recorded results until this call's.
        while self.queue:
            start, result = self.queue.pop(0)
            if start.get("name") == name and start.get("arguments") == arguments:
                return plain_copy(result)
        raise RequestDrift(f"{name}({arguments}) was never called in the recording")


def replay(path, *, check_requests=True, served=False):
    """Replay one recording; return {"recording", "events", "final_tests", "verdict", "differences"}."""
    recording = load(path)
    task = recorded_task(recording)  # a shipped task by name, or the one fix.py built (`task_spec`)
    if recording["sample"] != sample_hashes(task.repo):
        raise ValueError(f"{path}: the task's files differ from the ones it was recorded on; "
                         "re-record it (see record_run.py)")
    model, settings = ReplayModel(recording, check_requests), loop_settings(recording)
    if served:
        events = list(agent_events(model, ServedTools(recording), recording["task"], settings))
        final_tests, verdict = recording["final_tests"], recording.get("verdict")
        differences = event_differences(recording["events"], events)
    else:
        with tempfile.TemporaryDirectory(prefix="coding-loop-replay-") as folder:
            body = run_recorded(model, RepoTools(fresh_copy(task, folder), task=task), settings,
                                prompt=recording["task"])
        events, final_tests, verdict = body["events"], body["final_tests"], body["verdict"]
        differences = outcome_differences(recording, events, final_tests)
    if model.unplayed > 0:
        differences.append(f"{model.unplayed} recorded turn(s) were never requested")
    return {"recording": recording, "events": events, "final_tests": final_tests, "verdict": verdict,
            "differences": differences}


def main(argv=None):
    parser = OneLineParser(description="Replay recordings offline with the real tools and pytest.")
    parser.add_argument("paths", nargs="*", metavar="FILE", help="recordings (default: every file in recordings/)")
    parser.add_argument("--served", action="store_true",
                        help="serve recorded tool results (no pytest, no subprocess); events must match exactly")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(str(p) for p in RECORDINGS.glob("*.json"))
    if not paths:
        return fail(f"no recordings in {RECORDINGS}")
    if not args.served and importlib.util.find_spec("pytest") is None:
        return fail(f"pytest is not installed for {sys.executable}; run "
                     "`pip install -r requirements-lock.txt` in this environment first")
    if not args.served and sandbox.detect()[1]:
        print(f"warning: {sandbox.detect()[1]}", file=sys.stderr)  # once, not per recording
    try:
        failed = sum(not _replay_one(path, args.served) for path in paths)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    print(f"{len(paths) - failed} of {len(paths)} recordings replayed as recorded")
    return 1 if failed else 0


def _replay_one(path, served):
    """Replay and print one recording; True when it matches."""
    try:
        result = replay(path, served=served)
    except (OSError, ValueError) as error:
        print(f"error: {clean(str(error))}", file=sys.stderr)
        return False
    recording = result["recording"]
    label = recording.get("about") or recording["model"]["name"]
    print(f"=== {path} ({recording['source']}: {clean(str(label))})")
    show = Printer()
    for event in result["events"]:
        show(event)
    print(f"verdict: {clean(str(result['verdict']))} (independent pytest: {result_line(result['final_tests'])})")
    if result["differences"]:
        print("DIFFERS from the recording:\n" + "\n".join(f"  - {clean(d)}" for d in result["differences"]) + "\n")
        return False
    print("matches the recording\n")
    return True


if __name__ == "__main__":
    run_cli(main)
