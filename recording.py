"""The recording format ("coding-loop-recording/1"): capture a run, save it, load it.

`run_recorded` drives the loop on a fresh copy of the sample with the real tools, keeps
every request (copied at call time), every chunk, every event and the timings, and runs the
tests before and after, independently of anything the model said. record_run.py calls it
with the live model; replay.py with a ReplayModel.

What this file deliberately is not: a model adapter (no SDK here) or a test oracle.
"""
import copy
import datetime
import hashlib
import json
import shutil
import time
from pathlib import Path

from agent_loop import SYSTEM, agent_events
from repo_tools import write_atomic

FORMAT = "coding-loop-recording/1"
SAMPLE = Path(__file__).parent / "sample_repo"
TEST_FILE = "tests/test_path_rules.py"
TASK = ("The test suite in tests/test_path_rules.py has a failing test. "
        "Find out why and fix path_rules.py so that every test passes.")


class Recorder:
    """Wraps a chat callable and keeps each request, its chunks, any error and its time."""

    def __init__(self, chat):
        self.chat = chat
        self.turns = []
        self.model_s = []

    def __call__(self, messages, tool_schemas):
        # Copied now: the loop's list keeps growing after this request was sent.
        turn = {"request": {"messages": copy.deepcopy(messages)}, "chunks": []}
        self.turns.append(turn)
        return self._stream(turn, messages, tool_schemas)

    def _stream(self, turn, messages, tool_schemas):
        started = time.perf_counter()
        stream = None
        try:
            stream = self.chat(messages, tool_schemas)
            for chunk in stream:
                turn["chunks"].append(chunk)
                yield chunk
        except Exception as error:
            turn["error"] = f"{type(error).__name__}: {error}"  # replayed as the same failure
            raise
        finally:
            if stream is not None and hasattr(stream, "close"):
                stream.close()
            self.model_s.append(round(time.perf_counter() - started, 4))


def fresh_sample(folder):
    """Copy the sample into `folder`/repo and return the copy's path."""
    return Path(shutil.copytree(SAMPLE, Path(folder) / "repo"))


def sample_hashes(root=None):
    """sha256 of every file of the sample (or of a copy at `root`), by relative path."""
    root = Path(root or SAMPLE)
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def run_recorded(chat, tools, *, task=TASK, max_turns=8, deadline=None, on_event=None, start_tests=None):
    """Run the loop on `tools.root` (a fresh sample copy) and return the recording's body.
    `start_tests` is the result of the tests run before the loop (a replay has none)."""
    sample = sample_hashes(tools.root)
    recorder, events, tool_s = Recorder(chat), [], []
    for event in agent_events(recorder, tools, task, max_turns=max_turns, deadline=deadline):
        if event["type"] == "tool_start":
            tool_started = time.perf_counter()
        elif event["type"] == "tool_result":
            tool_s.append(round(time.perf_counter() - tool_started, 4))
        events.append(event)
        if on_event:
            on_event(event)
    final_tests = tools.run_tests()  # the verdict: pytest's, never the model's
    tests_unchanged = _same_file(tools.root / TEST_FILE, SAMPLE / TEST_FILE)
    return {
        "created_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "task": task, "system": SYSTEM, "tools": tools.schemas,
        "settings": {"max_turns": max_turns, "deadline": deadline},
        "sample": sample, "sandbox": tools.sandbox,
        "start_tests": start_tests, "final_tests": final_tests, "tests_unchanged": tests_unchanged,
        "verdict": verdict(final_tests, tests_unchanged),
        "turns": recorder.turns, "events": events, "stop": events[-1],
        "timings": {"model_s": recorder.model_s, "tool_s": tool_s},
    }


def _same_file(copy_path, original):
    """Byte equality, without following a link or opening a FIFO the tested code left there."""
    if copy_path.is_symlink() or not copy_path.is_file():
        return False
    return copy_path.read_bytes() == original.read_bytes()


def verdict(final_tests, tests_unchanged):
    """Repaired only when the independent run passes and the tests are the shipped ones."""
    if not tests_unchanged:
        return "tests were modified"
    return "repaired" if final_tests["exit_code"] == 0 else "not repaired"


def save(path, recording):
    """Write a recording atomically, readable by people and diff tools."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(recording, indent=1, ensure_ascii=False) + "\n")


def load(path):
    """Read a recording, refusing any other format."""
    recording = json.loads(Path(path).read_text(encoding="utf-8"))
    if recording.get("format") != FORMAT:
        raise ValueError(f"{path}: format is {recording.get('format')!r}, expected {FORMAT!r}")
    if recording.get("source") not in ("live", "scripted"):
        raise ValueError(f"{path}: source must be 'live' or 'scripted', not {recording.get('source')!r}")
    return recording
