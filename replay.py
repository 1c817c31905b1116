"""Replay recordings offline: saved chunks stand in for the model, everything else is real.

    python replay.py                 # every file in recordings/
    python replay.py FILE [FILE ...]

`ReplayModel` plays turn i's saved chunks for request i and, by default, checks that the
request equals the recorded one, so a change to the loop, the prompt or a tool that alters
what the model would have seen is caught and named. `replay(path)` runs a recording on a
fresh copy of the sample with the real tools and pytest. The CLI exits non-zero when any
replay's outcome differs from its recording.

What this file deliberately is not: a model. It cannot answer a request it has not seen.
"""
import copy
import json
import sys
import tempfile
from pathlib import Path

from printer import OneLineParser, Printer
from recording import fresh_sample, load, run_recorded, sample_hashes
from repo_tools import RepoTools

RECORDINGS = Path(__file__).parent / "recordings"
# Tool-result fields that describe this machine, not the run: a recording made with the
# sandbox must still replay where bubblewrap is missing.
MACHINE_FIELDS = {"sandbox", "sandbox_warning"}


class RequestDrift(Exception):
    """A request differs from the recording, or goes beyond it."""


class ReplayedModelError(Exception):
    """The recorded model failed here; the replay fails the same way."""


class ReplayModel:
    """A chat callable that answers request i with the recording's turn i (a dict or a path)."""

    def __init__(self, recording, check_requests=True):
        recording = recording if isinstance(recording, dict) else load(recording)
        self.turns, self.check_requests, self.served = recording["turns"], check_requests, 0

    def __call__(self, messages, tool_schemas):
        self.served += 1
        if self.served > len(self.turns):
            raise RequestDrift(f"request {self.served} goes beyond the recording's {len(self.turns)} turns")
        turn = self.turns[self.served - 1]
        if self.check_requests:
            _check_request(self.served, turn["request"]["messages"], messages)
        return self._stream(turn)

    def _stream(self, turn):
        for chunk in turn["chunks"]:
            yield copy.deepcopy(chunk)
        if "error" in turn:
            raise ReplayedModelError(turn["error"])


def _check_request(turn, recorded, received):
    if len(received) != len(recorded):
        raise RequestDrift(f"turn {turn}: the request has {len(received)} messages, the recording {len(recorded)}")
    for index, (want, got) in enumerate(zip(recorded, received)):
        if want.get("role") == "tool" == got.get("role"):
            want, got = _tool_message(want), _tool_message(got)
        field = _first_difference(want, got)
        if field is not None:
            raise RequestDrift(f"turn {turn}, message {index}: field {field!r} differs from the recording")


def _tool_message(message):
    """A tool message with its JSON content parsed and the machine fields left out."""
    try:
        content = json.loads(message["content"])
    except (KeyError, TypeError, ValueError):
        return message
    if isinstance(content, dict):
        content = {key: value for key, value in content.items() if key not in MACHINE_FIELDS}
    return {**message, "content": content}


def _first_difference(want, got, path=""):
    """The dotted path of the first differing field, or None when equal."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got), key=str):
            found = _first_difference(want.get(key), got.get(key), f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got)):
            found = _first_difference(a, b, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    return None if want == got else (path or "(whole message)")


def replay(path, *, check_requests=True):
    """Replay one recording on a fresh sample copy; return {"recording", "events", "final_tests"}."""
    recording = load(path)
    if recording["sample"] != sample_hashes():
        raise ValueError(f"{path}: the sample's files differ from the ones it was recorded on; "
                         "re-record it (see record_run.py)")
    with tempfile.TemporaryDirectory(prefix="coding-loop-replay-") as folder:
        tools = RepoTools(fresh_sample(folder))
        # No deadline: wall-clock time is not part of what a replay reproduces.
        body = run_recorded(ReplayModel(recording, check_requests), tools, task=recording["task"],
                            max_turns=recording["settings"]["max_turns"])
    return {"recording": recording, "events": body["events"], "final_tests": body["final_tests"]}


def outcome(events, final_tests):
    """What a replay must reproduce: the stop reason, tool exit codes, the final exit code."""
    tools = [(e["name"], e["result"].get("exit_code", "error" if "error" in e["result"] else "ok"))
             for e in events if e["type"] == "tool_result"]
    return {"stop": events[-1]["reason"], "tools": tools, "final_exit_code": final_tests["exit_code"]}


def main(argv=None):
    parser = OneLineParser(description="Replay recordings offline with the real tools and pytest.")
    parser.add_argument("paths", nargs="*", metavar="FILE", help="recordings (default: every file in recordings/)")
    paths = parser.parse_args(argv).paths or sorted(str(p) for p in RECORDINGS.glob("*.json"))
    if not paths:
        print(f"no recordings in {RECORDINGS}", file=sys.stderr)
        return 1
    differing = 0
    for path in paths:
        try:
            result = replay(path)
        except (OSError, ValueError) as error:
            print(f"error: {error}", file=sys.stderr)
            differing += 1
            continue
        recording = result["recording"]
        print(f"=== {path} ({recording['source']}: {recording.get('about', recording['model']['name'])})")
        show = Printer()
        for event in result["events"]:
            show(event)
        want = outcome(recording["events"], recording["final_tests"])
        got = outcome(result["events"], result["final_tests"])
        same = want == got
        differing += not same
        print(f"independent pytest: exit_code {got['final_exit_code']}; "
              f"{'matches the recording' if same else f'DIFFERS from the recording: {want} != {got}'}\n")
    print(f"{len(paths) - differing} of {len(paths)} recordings replayed as recorded")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
