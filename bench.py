"""Benchmarks, printed from one run: this machine is shared and noisy, so read the ratios.

    python bench.py

1. Assembly: the loop consuming a 10k and a 100k chunk turn, and their ratio (about 10
   means linear; the target is at most 12).
2. Parsing calls written as text: microseconds per 2 KB reply (target: under 50 µs).
3. A real replay of recordings/fix_in_one_edit.json: the harness's own time per turn outside
   the tools (target: under 300 µs), and the share of wall time spent in pytest subprocesses.
4. Request bytes per turn of that recording (how fast the context grows).
5. The served replay of every recording: total time and subprocesses spawned (target: 0).
6. Prompt tokens per turn of the live recordings: cached by the server versus evaluated anew.
7. Scripted evaluation of the first six tasks (EVALUATED_TASKS): attempts per minute with
   --jobs 1 and --jobs 2 and their ratio (target: at least 1.6 on 2 cores), and the harness's
   time beyond the attempts' own pytest runs (target: at most 5%).
8. With --server URL: a model server's aggregate generated tokens per second with 1, 2 and 4
   requests at once, as ratios (attempt/throughput.py): what `--parallel` gains on this machine.

What this file deliberately is not: a test. Nothing here asserts a time.
"""
import json
import subprocess
import tempfile
import time
import timeit
from pathlib import Path

from agent_loop import agent_events
from evaluation.labels import Labels
from evaluation.runner import Evaluation, evaluate
from loop.text_calls import find_text_calls
from models.choice import ModelChoice
from models.scripted_turns import done, text
from replay import ReplayModel, replay
from repo_tools import RepoTools, schemas_for
from attempt.adapters import SCRIPTED
from command_line.printer import OneLineParser, fail, run_cli
from runs.recording import loop_settings
from runs.recording_file import load
from attempt.throughput import NotMeasured, slot_ratios
from settings.named import load_settings
from workspace.task_catalog import fresh_copy, load_task

HERE = Path(__file__).parent
RECORDINGS = sorted((HERE / "recordings").glob("*.json"))
# The scripted evaluation runs on a fixed set, the six tasks its figures were first measured on,
# so the rate stays comparable as tasks are added (and the benchmark does not grow with them).
EVALUATED_TASKS = ("path_rules", "discount_percent", "invoice_quantity", "refund_limit",
                   "pagination_last_page", "date_range_inclusive")


class NoTools:
    schemas = []


class TimedTools:
    """Real tools, with the time each kind of call took added up."""

    def __init__(self, tools):
        self.tools, self.schemas, self.seconds = tools, tools.schemas, {}

    def invoke(self, name, arguments, **options):
        started = time.perf_counter()
        try:
            return self.tools.invoke(name, arguments, **options)
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


def parse_microseconds():
    """Microseconds to find the one call in a 2 KB reply of prose and code."""
    prose = "I looked at the function and the failing test; the separators are the problem. " * 22
    reply = prose[:1900] + '\n```json\n{"name": "read_file", "arguments": {"path": "path_rules.py"}}\n```'
    schemas = schemas_for(load_task())
    assert len(find_text_calls(reply, schemas)) == 1
    runs = 2000
    return min(timeit.repeat(lambda: find_text_calls(reply, schemas), number=runs, repeat=5)) / runs * 1e6


def replay_profile(recording):
    """Wall time of one replay of the loop, split into tool time and the harness's own."""
    task = load_task(recording["task_name"])
    with tempfile.TemporaryDirectory() as folder:
        tools = TimedTools(RepoTools(fresh_copy(task, folder), task=task))
        started = time.perf_counter()
        events = list(agent_events(ReplayModel(recording), tools, recording["task"], loop_settings(recording)))
        wall = time.perf_counter() - started
    assert events[-1]["reason"] == recording["stop"]["reason"], "the replay drifted; fix that first"
    return wall, tools.seconds, len(recording["turns"])


def served_replays():
    """Seconds for the served replay of every recording, and the subprocesses it started."""
    spawned, real_popen = [], subprocess.Popen

    def counting(*args, **kwargs):
        spawned.append(args)
        return real_popen(*args, **kwargs)
    subprocess.Popen = counting
    try:
        started = time.perf_counter()
        differing = [path.name for path in RECORDINGS if replay(path, served=True)["differences"]]
        return time.perf_counter() - started, len(spawned), differing
    finally:
        subprocess.Popen = real_popen


def prompt_cache():
    """Per live recording: (name, [(cached, new) prompt tokens per turn])."""
    found = []
    for path in RECORDINGS:
        recording = load(path)
        if recording["source"] != "live":
            continue
        turns = []
        for turn in recording["turns"]:
            final = next((c for c in turn["chunks"] if c.get("done")), {})
            total, cached = final.get("prompt_eval_count"), final.get("cached_prompt_tokens")
            if total is not None and cached is not None:
                turns.append((cached, total - cached))
        found.append((path.stem, turns))
    return found


def evaluation_rate(jobs, folder):
    """Attempts per minute of the scripted evaluation with `jobs` workers, and the share of
    attempt time that is not the attempts' own pytest runs (evaluate.py's machinery, as
    `evaluate.py --scripted --attempts 2 --jobs N` runs it)."""
    out = Path(folder) / f"jobs-{jobs}"
    tasks = tuple(load_task(name) for name in EVALUATED_TASKS)
    scripted = ModelChoice(api="scripted", name="attempts", scripted=True)
    started = time.perf_counter()
    result = evaluate(Evaluation(out, tasks, 2, load_settings("plain"), scripted, jobs), Labels(dict(SCRIPTED)),
                      say=lambda line: None)
    wall = time.perf_counter() - started
    assert not result["lost"], "the scripted evaluation failed; fix that first"
    attempts = [json.loads(p.read_text()) for p in (out / "attempts").iterdir()]
    pytest_s = sum(a["timings"]["start_tests_s"] + a["timings"]["verdict_s"]
                   + sum(s for e, s in zip(_results(a), a["timings"]["tool_s"]) if e["name"] == "run_tests")
                   for a in attempts)
    attempt_s = sum(a["seconds"] for a in attempts)
    return len(attempts) / wall * 60, (attempt_s - pytest_s) / pytest_s


def _results(attempt):
    return [e for e in attempt["events"] if e["type"] == "tool_result"]


def main(argv=None):
    parser = OneLineParser(description="Print the benchmarks from one run (read the ratios: the machine is noisy).")
    parser.add_argument("--server", metavar="URL", help="also measure a running OpenAI-compatible server's parallel "
                                                         "slots (8. below), e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="the model it serves (with --server)")
    args = parser.parse_args(argv)
    if args.server:
        print(f"parallel slots of {args.server} ({args.model}): generated tokens per second, all requests together")
        try:
            slot_ratios(args.server, args.model)
        except NotMeasured as problem:  # before minutes of other benchmarks: the flag was what was asked for
            return fail(problem)
    small, large = assembly_seconds(10_000), assembly_seconds(100_000)
    print(f"assembly: 10k chunks {small * 1000:.1f} ms, 100k chunks {large * 1000:.1f} ms, "
          f"ratio {large / small:.1f} (linear is about 10; target at most 12)")
    print(f"calls written as text: {parse_microseconds():.1f} µs per 2 KB reply (target under 50 µs)")
    recording = load(HERE / "recordings" / "fix_in_one_edit.json")
    wall, tool_seconds, turns = replay_profile(recording)
    harness = wall - sum(tool_seconds.values())
    print(f"replay of fix_in_one_edit.json: {turns} turns in {wall * 1000:.0f} ms wall; "
          f"harness outside tools {harness / turns * 1e6:.0f} µs per turn (target under 300 µs); "
          f"pytest subprocesses {tool_seconds.get('run_tests', 0) / wall:.1%} of wall time")
    sizes = [len(json.dumps(turn["request"]["messages"]).encode()) for turn in recording["turns"]]
    print(f"request bytes per turn: {sizes} (growth {sizes[-1] / sizes[0]:.1f}x over {turns} turns)")
    seconds, spawned, differing = served_replays()
    print(f"served replay of all {len(RECORDINGS)} recordings: {seconds * 1000:.0f} ms, "
          f"subprocesses spawned: {spawned}, differing: {differing or 'none'}")
    for name, turns in prompt_cache():
        shown = ", ".join(f"{cached}+{new}" for cached, new in turns) or "no token counts"
        print(f"prompt tokens per turn (cached+new) in {name}: {shown}")
    with tempfile.TemporaryDirectory() as folder:
        (one, overhead_one), (two, overhead_two) = evaluation_rate(1, folder), evaluation_rate(2, folder)
    print(f"scripted evaluation: {one:.0f} attempts/min with --jobs 1, {two:.0f} with --jobs 2, "
          f"ratio {two / one:.2f} (target at least 1.6); harness beyond pytest "
          f"{overhead_one:.1%} / {overhead_two:.1%} of it (target at most 5%)")


if __name__ == "__main__":
    run_cli(main)
