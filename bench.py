"""Benchmarks, printed from one run: this machine is shared and noisy, so read the ratios.

    python bench.py

1. Assembly: the loop consuming a 10k and a 100k chunk turn, and their ratio (about 10
   means linear; the target is at most 12).
2. A replay of recordings/fix_in_one_edit.json: the harness's own time per turn outside the
   tools (target: under 1 ms), and the share of wall time spent in pytest subprocesses.
3. Request bytes per turn of that recording (how fast the context grows).

What this file deliberately is not: a test. Nothing here asserts a time.
"""
import json
import tempfile
import time
from pathlib import Path

from agent_loop import agent_events
from recording import fresh_sample, load
from replay import ReplayModel
from repo_tools import RepoTools
from scripted import done, text

RECORDING = Path(__file__).parent / "recordings" / "fix_in_one_edit.json"


class NoTools:
    schemas = []


class TimedTools:
    """Real tools, with the time each kind of call took added up."""

    def __init__(self, tools):
        self.tools, self.schemas, self.seconds = tools, tools.schemas, {}

    def invoke(self, name, arguments):
        started = time.perf_counter()
        try:
            return self.tools.invoke(name, arguments)
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started


def assembly_seconds(chunk_count, repeats=3):
    """Best time for the loop to consume one turn of `chunk_count` text chunks."""
    chunks = [text("x") for _ in range(chunk_count)] + [done()]
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for _event in agent_events(lambda messages, schemas: iter(chunks), NoTools(), "bench"):
            pass
        best = min(best, time.perf_counter() - started)
    return best


def replay_profile(recording):
    """Wall time of one replay of the loop, split into tool time and the harness's own."""
    with tempfile.TemporaryDirectory() as folder:
        tools = TimedTools(RepoTools(fresh_sample(folder)))
        started = time.perf_counter()
        events = list(agent_events(ReplayModel(recording), tools, recording["task"],
                                   max_turns=recording["settings"]["max_turns"]))
        wall = time.perf_counter() - started
    assert events[-1]["reason"] == recording["stop"]["reason"], "the replay drifted; fix that first"
    return wall, tools.seconds, len(recording["turns"])


def main():
    small, large = assembly_seconds(10_000), assembly_seconds(100_000)
    print(f"assembly: 10k chunks {small * 1000:.1f} ms, 100k chunks {large * 1000:.1f} ms, "
          f"ratio {large / small:.1f} (linear is about 10; target at most 12)")
    recording = load(RECORDING)
    wall, tool_seconds, turns = replay_profile(recording)
    harness = wall - sum(tool_seconds.values())
    print(f"replay of {RECORDING.name}: {turns} turns in {wall * 1000:.0f} ms wall; "
          f"harness outside tools {harness / turns * 1000:.3f} ms per turn (target under 1 ms); "
          f"pytest subprocesses {tool_seconds.get('run_tests', 0) / wall:.1%} of wall time")
    sizes = [len(json.dumps(turn["request"]["messages"]).encode()) for turn in recording["turns"]]
    print(f"request bytes per turn: {sizes} (growth {sizes[-1] / sizes[0]:.1f}x over {turns} turns)")


if __name__ == "__main__":
    main()
