"""CLI: tasks × attempts against a model, graded, summarised, and reported as one HTML page.

    python evaluate.py --scripted --jobs 2                     # offline: shipped scripted attempts
    python evaluate.py --api openai --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b --attempts 3

Each attempt runs on a fresh copy of its task, in a worker process (a standard
`concurrent.futures` executor: Ray's or Dask's could be dropped in), and is saved as
`OUT/attempts/<task>-<k>.json` (a recording plus its grades) the moment it finishes. A
finished attempt is never redone: run the same command again to resume. Attempts lost to the
server (it went away, the model is missing) are infra failures: counted apart, retried on
resume, never counted as the model's failures. Then `OUT/summary.json` and `OUT/report.html`.

What this file deliberately is not: part of the loop (it consumes `run_recorded` like
record_run.py does) or a judge (verdict.py is; grades.py only reads the events).
"""
import json
import multiprocessing
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from evaluation.grades import claim, grade, markdown_table, summarise
from evaluation.report import write_report
from evaluation.scripted_attempts import attempt_script
from local_model import ModelUnavailable
from repo_tools import RepoTools, write_atomic
from runs.flags import (
    add_loop_flags,
    add_model_flags,
    check_model_flags,
    make_model,
    positive,
)
from runs.printer import OneLineParser, clean, fail, run_cli
from runs.recording import FORMAT, load, run_recorded, save
from testing.scripted import ScriptedChat
from workspace.task_catalog import fresh_copy, load_task, task_names

HERE = Path(__file__).parent


def parse_args(argv):
    parser = OneLineParser(description="Evaluate a model on every task, several attempts each.")
    add_model_flags(parser)
    add_loop_flags(parser)
    parser.add_argument("--tasks", default="all", help="all, or names separated by commas")
    parser.add_argument("--attempts", type=positive(int), default=1, metavar="K", help="attempts per task")
    parser.add_argument("--jobs", type=positive(int), default=1, metavar="N", help="attempts run at once")
    parser.add_argument("--out", help="output folder (default: a new evaluations/TIME); an existing one is resumed")
    parser.add_argument("--scripted", action="store_true", help="play the shipped scripted attempts, no model")
    args = parser.parse_args(argv)
    if not args.scripted:
        check_model_flags(parser, args)
    names = task_names() if args.tasks == "all" else list(dict.fromkeys(n.strip() for n in args.tasks.split(",")))
    unknown = [name for name in names if name not in task_names()]
    if unknown or not names:
        parser.error(f"unknown task {', '.join(unknown) or '(none)'}; tasks: {', '.join(task_names())}")
    args.task_list = names
    args.out = Path(args.out or f"evaluations/{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}")
    return args


def main(argv=None):
    args = parse_args(argv)
    problem = claim_folder(args)
    if problem:
        return fail(problem)
    model = None if args.scripted else make_model(args)
    try:
        info = {"name": "scripted", "digest": None} if args.scripted else model.check()
    except ModelUnavailable as error:  # a server that is down at the start: one line, nothing run
        return fail(error)
    info = {"name": info["name"], "digest": args.model_digest or info["digest"]}
    finished, todo = plan(args)
    commit, dirty = git_state()  # once: every attempt of this invocation runs this same code
    print(f"evaluating {clean(info['name'])}: {len(args.task_list)} tasks x {args.attempts} attempts; "
          f"{len(finished)} already finished in {args.out}, {len(todo)} to run, {args.jobs} at once")
    try:
        attempts = finished + run_all(args, info, commit, todo, len(finished))
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished attempts are kept in {args.out}; run the same command to resume",
              file=sys.stderr)
        return 130
    summary = summarise(sorted(attempts, key=order), args.attempts, info, commit, dirty)
    write_atomic(args.out / "summary.json", json.dumps(summary, indent=1) + "\n")
    write_report(args.out, summary, sorted(attempts, key=order))
    print(f"\n{markdown_table(summary)}\n\nwrote {args.out / 'summary.json'} and {args.out / 'report.html'}")
    return 0


def claim_folder(args):
    """Create the output folder, or check that an existing one holds this same evaluation."""
    settings = {key: str(value) for key, value in sorted(vars(args).items())
                if key not in ("jobs", "out", "tasks", "task_list", "attempts")}
    marker = args.out / "evaluation.json"
    try:
        if marker.exists() and json.loads(marker.read_text())["settings"] != settings:
            return f"{args.out} holds an evaluation with other settings; pass a new --out"
        (args.out / "attempts").mkdir(parents=True, exist_ok=True)
        write_atomic(marker, json.dumps({"settings": settings}, indent=1) + "\n")
    except (OSError, ValueError, KeyError, TypeError) as error:  # a marker that is not ours
        return f"cannot use {args.out}: {type(error).__name__}: {error}"
    return None


def plan(args):
    """(finished attempts, (task, k) still to run): a finished attempt is resumed, not redone."""
    finished, todo = [], []
    for name in args.task_list:
        for k in range(1, args.attempts + 1):
            path = args.out / "attempts" / f"{name}-{k}.json"
            try:
                attempt = load(path) if path.exists() else None
            except ValueError:
                attempt = None  # unreadable: run it again
            if attempt and "grades" in attempt:
                finished.append(attempt)
            else:
                todo.append((name, k))  # never run, unreadable, or lost to the server last time
    return finished, todo


def run_all(args, info, commit, todo, already):
    """Run the attempts in worker processes; print one line as each finishes."""
    attempts, total = [], already + len(todo)
    # "spawn": each worker starts clean, not as a copy of this process and its threads. The
    # workers ignore Ctrl-C: it is this process's to handle, by stopping them all at once.
    pool = ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))
    try:
        futures = {pool.submit(run_attempt, args, info, commit, name, k): (name, k) for name, k in todo}
        for future in as_completed(futures):
            attempts.append(_result(future, futures[future], args))
            print(progress_line(attempts[-1], already + len(attempts), total, attempts), flush=True)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in multiprocessing.active_children():
            worker.terminate()  # an attempt cut short is not saved, so it runs again on resume
        raise
    pool.shutdown()
    return attempts


def _result(future, task_and_k, args):
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001 - the harness failed, not the model
        name, k = task_and_k
        return {"attempt_id": f"{name}-{k}", "task_name": name,
                "infra_failure": f"the harness failed: {type(error).__name__}: {error}"}


def run_attempt(args, info, commit, name, k):
    """One attempt on a fresh copy (in a worker): record it, grade it, save it, return it."""
    task, started = load_task(name), time.perf_counter()
    if args.scripted:
        about, turns = attempt_script(name, k)
        chat, head = ScriptedChat(*turns), {"source": "scripted", "about": about}
        server = {"api": "scripted", "url": None}
    else:
        chat, head = make_model(args), {"source": "live"}
        server = {"api": args.api, "url": chat.url}
    with tempfile.TemporaryDirectory(prefix="coding-loop-eval-") as folder:
        tools = RepoTools(fresh_copy(task, folder), task=task)
        if not args.scripted:
            chat = chat.with_deadline(args.deadline)  # the attempt starts now
        body = run_recorded(chat, tools, max_turns=args.max_turns, deadline=args.deadline,
                            text_calls=args.text_calls, verify_finish=args.verify_finish)
    body["settings"].update({} if args.scripted else chat.recorded())
    attempt = {"format": FORMAT, **head, "model": info, "server": server, **body,
               "attempt_id": f"{name}-{k}", "commit": commit, "seconds": round(time.perf_counter() - started, 2)}
    if body["stop"]["reason"] == "model_error":
        attempt["infra_failure"] = body["stop"].get("error", "model_error")
    else:
        attempt.update(grades=grade(attempt, task), claim=claim(attempt))
    save(args.out / "attempts" / f"{name}-{k}.json", attempt)
    return attempt


def progress_line(attempt, done, total, so_far):
    graded = [a for a in so_far if "grades" in a]
    rate = f"{sum(a['verdict'] == 'repaired' for a in graded)}/{len(graded)} repaired so far"
    head = f"[{done:>3}/{total}] {attempt['attempt_id']:<28}"
    if "infra_failure" in attempt:
        return f"{head} infra failure: {clean(attempt['infra_failure'])[:120]}  ({rate})"
    flag = "  (claim contradicted)" if attempt["claim"]["contradicted"] else ""
    turns = sum(e["type"] == "model_start" for e in attempt["events"])
    return (f"{head} {attempt['verdict']:<13} {attempt['stop']['reason']:<22} {turns} turns "
            f"{attempt['seconds']:6.1f} s  ({rate}){flag}")


def order(attempt):
    name, _, k = attempt["attempt_id"].rpartition("-")
    return (task_names().index(name) if name in task_names() else len(task_names()), name, int(k))


def git_state():
    """(commit, dirty) of this checkout, or (None, None) outside git."""
    def git(*command):
        return subprocess.run(["git", *command], cwd=HERE, capture_output=True, text=True, timeout=10)
    try:
        commit = git("rev-parse", "HEAD")
        status = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    if commit.returncode != 0:
        return None, None
    return commit.stdout.strip(), bool(status.stdout.strip())


if __name__ == "__main__":
    run_cli(main)
