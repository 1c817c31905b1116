"""Replay recordings offline: saved chunks stand in for the model, everything else is real.

    python replay.py                 # every file in recordings/, real tools and real pytest
    python replay.py FILE [FILE ...]
    python replay.py --served        # recorded tool results instead: no subprocess at all
    python replay.py --tasks-dir DIR FILE   # a recording of a task from another folder

`ReplayModel` plays turn i's saved chunks for request i and, by default, checks that the
request equals the recorded one, so a change to the loop, the prompt or a tool that alters
what the model would have seen is caught and named; a recorded model error is raised again,
worded exactly as recorded. `replay(path)` runs a recording on a fresh copy of its task's
repository with the real tools and pytest; `replay(path, served=True)` serves each tool's
recorded result, requires the very same events and recomputes the verdict from the recorded
final tests. Both compare the final tests' counts and the verdict with the recording's. The
CLI ends with a table of every recording (which differ, and how) and exits non-zero when any
replay differs from its recording.

What this file deliberately is not: a model. It cannot answer a request it has not seen.
"""
import importlib.util
import sys
import tempfile
from pathlib import Path

from command_line import ctrl_c
from command_line.printer import OneLineParser, clean, fail, run_cli
from fixing.task import recorded_task
from runs.recording import loop_settings, sample_hashes
from runs.recording_file import load, plain_copy
from runs.replay_check import RequestDrift, check_request, check_tools
from runs.replay_table import closing_table, print_replay
from attempt.replaying import replay_attempt
from workspace import sandbox

RECORDINGS = Path(__file__).parent / "recordings"


class ReplayedModelError(Exception):
    """The recorded model failed here; the replay fails the same way."""


def recorded_error(text):
    """An exception the loop words exactly as the recorded `text`. The loop writes a model error
    as "Name: message" (the exception's class name, then its text), so the replayed exception
    takes the recorded name: a served replay must give the very same `stopped` event. A name
    no class can have (a hand-edited recording) keeps the whole text, and the replay differs."""
    name, colon, message = text.partition(": ")
    try:
        return type(name, (ReplayedModelError,), {})(message) if colon else ReplayedModelError(text)
    except (ValueError, UnicodeError):  # a NUL or a lone surrogate in the name
        return ReplayedModelError(text)


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
            raise recorded_error(turn["error"])


def open_recording(path, tasks_dir=None):
    """(recording, its task, its LoopSettings): a recording loaded and checked (recordings are
    untrusted), the task it was made on (a task by name from the shipped tasks/ or `tasks_dir`,
    or the one fix.py built: `task_spec`), whose files must be the very ones it was recorded on.
    Anything else is a ValueError naming the file."""
    recording = load(path)
    task = recorded_task(recording, tasks_dir)
    if recording["sample"] != sample_hashes(task.repo):
        raise ValueError(f"{path}: the task's files differ from the ones it was recorded on; "
                         "re-record it (see record_run.py)")
    return recording, task, loop_settings(recording)


def replay(path, *, check_requests=True, served=False, tasks_dir=None):
    """Replay one recording; return {"recording", "events", "final_tests", "verdict", "changed_files",
    "tests_unchanged", "differences"}. `tasks_dir`: the folder its task comes from (default: the
    shipped tasks/). A single run is played as a search of one (attempt/replaying.py)."""
    recording, task, settings = open_recording(path, tasks_dir)
    with tempfile.TemporaryDirectory(prefix="coding-loop-replay-") as folder:
        return {"recording": recording, **replay_attempt(
            recording, task, settings, lambda part: ReplayModel(part, check_requests), served=served, folder=folder)}


def main(argv=None):
    parser = OneLineParser(description="Replay recordings offline with the real tools and pytest.")
    parser.add_argument("paths", nargs="*", metavar="FILE", help="recordings (default: every file in recordings/)")
    parser.add_argument("--served", action="store_true",
                        help="serve recorded tool results (no pytest, no subprocess); events must match exactly")
    # Not command_line.shared_flags.add_task_flags: command_line/shared_flags.py imports the model SDKs, which a replay never needs.
    parser.add_argument("--tasks-dir", metavar="DIR", help="the folder of the recordings' tasks (default: tasks/)")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(str(p) for p in RECORDINGS.glob("*.json"))
    if not paths:
        return fail(f"no recordings in {RECORDINGS}")
    for path in paths:  # a mistyped name is one line, not an [Errno 2] and a table of one ERROR
        if Path(path).is_dir():
            return fail(f"{path} is a folder; name the recordings in it ({path}/*.json)")
        if not Path(path).exists():
            return fail(f"{path}: no such file")
    if not args.served and importlib.util.find_spec("pytest") is None:
        return fail(f"pytest is not installed for {sys.executable}; run "
                     "`pip install -r requirements-lock.txt` in this environment first")
    if not args.served and sandbox.detect()[1]:
        print(f"warning: {sandbox.detect()[1]}", file=sys.stderr)  # once, not per recording
    try:
        rows = []
        for path in paths:
            ctrl_c.check()  # a Ctrl-C dropped on its way (command_line/ctrl_c.py) stops before the next recording
            rows.append(_replay_one(path, args.served, args.tasks_dir))
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    # After hundreds of transcript lines, the end says which recordings differ and how.
    print("\n".join(closing_table(paths, rows)))
    same = sum(row[-1] == "yes" for row in rows)
    print(f"{same} of {len(paths)} recordings replayed as recorded")
    return 0 if same == len(paths) else 1


def _replay_one(path, served, tasks_dir):
    """Replay and print one recording; return its row of the closing table."""
    try:
        result = replay(path, served=served, tasks_dir=tasks_dir)
    except (OSError, ValueError) as error:
        print(f"error: {clean(str(error))}", file=sys.stderr)
        return ["?", "?", "?", "ERROR"]
    return print_replay(path, result, served)


if __name__ == "__main__":
    run_cli(main)
