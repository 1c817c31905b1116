"""Aider, the reference peer, on the project's tasks, judged by the project's own verdict.

For each chosen task and attempt: a fresh copy of the task's pristine repository; aider (whole-file
edit format, temperature and seed as given, auto-test with the tasks' own sandboxed pytest) run as
a subprocess from its own throwaway environment on that copy, with the ticket as its one message,
the editable files added to its chat and the other readable ones read-only; then the independent
verdict (workspace/verdict.py: only the editable files, copied into a fresh pristine copy, tested
there). OUT/attempts.jsonl gets a line per attempt, OUT/summary.json the repaired count per task
and pass@1, OUT/<task>-<k>/ aider's chat history, the requests it sent, its terminal output and
the diff. A second run into the same OUT skips the attempts already there. aider_setup.py says
how aider is run and kept off the internet (`outside_requests` in each line: what it tried);
README.md beside this file has the install and run commands.

What this file deliberately is not: part of the harness. It never imports aider, nothing imports
it, and pytest never collects it (measurements/ is outside the suite, pytest.ini).
"""
import argparse
import ast
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a file: the project root first

from measurements.peers.aider_setup import Tripwire, aider_command, aider_env, run_aider  # noqa: E402
from repo_tools import RepoTools  # noqa: E402
from workspace.files import remove_tree  # noqa: E402
from workspace.task_catalog import fresh_copy, load_task, task_names  # noqa: E402
from workspace.verdict import judge  # noqa: E402

# How aider's --verbose output shows each request of its chat-history summarizer (aider/prompts.py).
SUMMARY_DUMP = '        "content": "*Briefly* summarize this partial conversation'


def run_attempt(args, task, k, start_tests, out, tripwire):
    """Run aider once on a fresh copy and judge what it left; return the attempt's line."""
    seed, keep, started, seen = args.seed + k - 1, out / f"{task.name}-{k}", time.perf_counter(), len(tripwire.seen)
    keep.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="aider-peer-"))
    try:
        copy, home = fresh_copy(task, folder), folder / "home"
        home.mkdir()
        test_cmd = shlex.join([sys.executable, str(Path(__file__).resolve()), "--run-tests", task.name, str(copy)]
                              + (["--tasks-dir", args.tasks_dir] if args.tasks_dir else []))
        argv = aider_command(args, task, test_cmd, folder, keep, seed)
        exit_code, timed_out = run_aider(argv, copy, aider_env(args, home, tripwire), args.attempt_timeout,
                                         keep / "aider.log")
        seconds = round(time.perf_counter() - started, 1)
        judged = judge(RepoTools(copy, task=task, test_timeout=args.test_timeout), start_tests)
    finally:
        remove_tree(folder)
    (keep / "repo.diff").write_text(judged["diff"], encoding="utf-8")
    return {"task": task.name, "attempt": k, "seed": seed, "verdict": judged["verdict"], "seconds": seconds,
            "changed_files": judged["changed_files"], "tests_modified": not judged["tests_unchanged"],
            "non_editable_changed": [p for p in judged["changed_files"] if p not in task.editable],
            "final_tests": {key: judged["final_tests"].get(key) for key in ("passed", "failed", "errors", "exit_code")},
            "aider_exit_code": exit_code, "timed_out": timed_out, **_usage(keep),
            "outside_requests": tripwire.seen[seen:], "aider_argv": argv}


def _usage(keep):
    """The chat requests aider sent and their tokens (its analytics log, kept local); the requests
    its chat-history summarizer sent to the same model and the ones it sent again after an error,
    which no log of aider's counts, from the lines its --verbose output writes for each (an
    answer holding such a line would count too: a measuring aid, never a verdict)."""
    try:
        analytics = (keep / "aider.analytics.jsonl").read_text(encoding="utf-8").splitlines()
        events = [json.loads(line) for line in analytics if line.strip()]
        output = (keep / "aider.log").read_text(encoding="utf-8", errors="replace").splitlines()
    except (OSError, ValueError):
        events, output = [], []
    sends = [e.get("properties", {}) for e in events if isinstance(e, dict) and e.get("event") == "message_send"]
    return {"model_requests": len(sends), "prompt_tokens": sum(int(s.get("prompt_tokens", 0)) for s in sends),
            "completion_tokens": sum(int(s.get("completion_tokens", 0)) for s in sends),
            "summary_requests": sum(line.startswith(SUMMARY_DUMP) for line in output),
            "retries": sum(line.startswith("Retrying in ") for line in output),
            "server_seconds": _server_seconds(output)}


def _server_seconds(output):
    """What llama-server says its chat answers took (prompt plus generation: the rest of an
    attempt's seconds is aider, the tests, and waiting for a free slot), from the answers aider's
    --verbose output prints; the server's own timings come last on each such line."""
    total = 0.0
    for line in output:
        if line.startswith("ModelResponse(") and "timings={" in line:
            timings = line[line.rindex("timings={") + len("timings="):].split("}", 1)[0] + "}"
            try:
                found = ast.literal_eval(timings)
                total += (float(found.get("prompt_ms", 0)) + float(found.get("predicted_ms", 0))) / 1000
            except (ValueError, SyntaxError, TypeError, AttributeError, MemoryError, RecursionError):
                continue  # not the server's numbers: nothing to add
    return round(total, 1)


def summary(lines, header):
    """Repaired per task and pass@1 (the mean over tasks of each task's share of repaired attempts)."""
    tasks = {}
    for line in lines:
        entry = tasks.setdefault(line["task"], {"attempts": 0, "repaired": 0, "seconds": 0.0})
        entry["attempts"] += 1
        entry["repaired"] += line["verdict"] == "repaired"
        entry["seconds"] = round(entry["seconds"] + line["seconds"], 1)
    rate = sum(e["repaired"] / e["attempts"] for e in tasks.values()) / len(tasks) if tasks else 0.0
    return {**header, "tasks": tasks, "attempts": len(lines), "repaired": sum(e["repaired"] for e in tasks.values()),
            "tasks_repaired_at_least_once": sum(e["repaired"] > 0 for e in tasks.values()),
            "pass@1": round(rate, 4), "seconds": round(sum(line["seconds"] for line in lines), 1)}


def run_tests_only(name, root, tasks_dir):
    """aider's --test-cmd: the tasks' fixed pytest command, sandboxed, on `root`; pytest's exit code."""
    result = RepoTools(root, task=load_task(name, tasks_dir)).run_tests()
    print(result["output"])
    sys.exit(0 if result["exit_code"] == 0 else 1)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for attempts.jsonl, summary.json and each attempt's files")
    parser.add_argument("--aider", required=True, help="the aider executable of its own throwaway venv")
    parser.add_argument("--tasks", nargs="+", help="task names (default: every task)")
    parser.add_argument("--tasks-dir")
    parser.add_argument("--attempts", type=int, default=1, help="attempts per task (attempt k: seed + k - 1)")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-tokens", type=int, default=2048, help="per answer, as the harness sends")
    parser.add_argument("--context", type=int, default=8192, help="the server's context window per slot")
    parser.add_argument("--request-timeout", type=float, default=1200,
                        help="seconds aider waits for one answer before it retries (a shared server may queue it)")
    parser.add_argument("--attempt-timeout", type=float, default=1200, help="seconds before aider is killed")
    parser.add_argument("--test-timeout", type=float, default=15, help="seconds per test run (the harness's)")
    parser.add_argument("--no-history-summary", action="store_true",
                        help="raise aider's chat-history budget to the context, so it sends no summary requests")
    return parser.parse_args()


def main():
    args = parse_args()
    if not os.access(args.aider, os.X_OK):
        sys.exit(f"--aider {args.aider}: not an executable; README.md beside this script says how to install it")
    args.out.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([args.aider, "--version"], capture_output=True, text=True, timeout=120).stdout.strip()
    header = {"peer": version, "model": args.model, "base_url": args.base_url, "edit_format": "whole",
              "temperature": args.temperature, "seed": args.seed, "max_tokens": args.max_tokens,
              "history_summary": not args.no_history_summary}
    path = args.out / "attempts.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    done, tripwire = {(line["task"], line["attempt"]) for line in lines}, Tripwire()
    for name in args.tasks or task_names(args.tasks_dir):
        task = load_task(name, args.tasks_dir)
        todo = [k for k in range(1, args.attempts + 1) if (name, k) not in done]
        start_tests = pristine_tests(task, args) if todo else None
        for k in todo:
            print(f"{name} attempt {k} (seed {args.seed + k - 1}) ...", flush=True)
            lines.append(run_attempt(args, task, k, start_tests, args.out, tripwire))
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(lines[-1]) + "\n")
            (args.out / "summary.json").write_text(json.dumps(summary(lines, header), indent=1) + "\n")
            print(f"  {lines[-1]['verdict']} in {lines[-1]['seconds']} s", flush=True)


def pristine_tests(task, args):
    """The task's tests on its pristine repository: what the verdict counts against (once a task)."""
    with tempfile.TemporaryDirectory(prefix="aider-peer-start-") as folder:
        return RepoTools(fresh_copy(task, folder), task=task, test_timeout=args.test_timeout).run_tests()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--run-tests"]:
        run_tests_only(sys.argv[2], sys.argv[3], sys.argv[5] if sys.argv[4:5] == ["--tasks-dir"] else None)
    else:
        try:
            main()
        except ValueError as error:  # a task that cannot be loaded, named by load_task
            sys.exit(f"error: {error}")
        except KeyboardInterrupt:
            sys.exit("interrupted: the attempts finished so far are in OUT; the same command goes on from there")
