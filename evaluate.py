"""CLI: tasks × attempts against a model, graded, summarised, and reported as one HTML page.

    python evaluate.py --scripted --jobs 2                     # offline: shipped scripted attempts
    python evaluate.py --api openai --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b --attempts 3

Each attempt runs on a fresh copy of its task, in a worker process, and is saved as
`OUT/attempts/<task>-<k>.json` (a recording plus its grades) the moment it finishes; then
`OUT/summary.json` and `OUT/report.html` are rewritten, so the page shows the run as it goes.
A finished attempt is never redone: run the same command again to resume. Attempts lost to the
server (it went away, the model is missing) are counted apart, never as the model's failures;
the run then exits non-zero, and the same command retries them.

What this file deliberately is not: the machinery (evaluation/runner.py runs any configuration,
and improve.py uses it too), part of the loop, or a judge (workspace/verdict.py is).
"""
import subprocess
import sys
import time
from pathlib import Path

from evaluation.folder import FolderProblem
from evaluation.grades import markdown_table
from evaluation.runner import Evaluation, evaluate
from local_model import ModelUnavailable
from runs.flags import (
    add_loop_flags,
    add_model_flags,
    add_task_flags,
    check_model_flags,
    check_servers,
    positive,
    settings_from,
)
from runs.printer import OneLineParser, clean, fail, run_cli
from workspace.task_catalog import load_task, task_names

HERE = Path(__file__).parent


def parse_args(argv):
    parser = OneLineParser(description="Evaluate a model on every task, several attempts each.")
    add_model_flags(parser)
    add_loop_flags(parser)
    add_task_flags(parser, choose=False)
    parser.add_argument("--tasks", default="all", help="all, or names separated by commas")
    parser.add_argument("--attempts", type=positive(int), default=1, metavar="K", help="attempts per task")
    parser.add_argument("--jobs", type=positive(int), default=1, metavar="N", help="attempts run at once")
    parser.add_argument("--out", help="output folder (default: a new evaluations/TIME); an existing one is resumed")
    parser.add_argument("--scripted", action="store_true", help="play the shipped scripted attempts, no model")
    args = parser.parse_args(argv)
    if not args.scripted:
        check_model_flags(parser, args)
    try:
        known = task_names(args.tasks_dir)
    except ValueError as error:
        parser.error(str(error))
    names = known if args.tasks == "all" else list(dict.fromkeys(n.strip() for n in args.tasks.split(",")))
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        parser.error(f"unknown task {', '.join(unknown) or '(none)'}; tasks: {', '.join(known) or '(none)'}")
    args.task_list = names
    args.out = Path(args.out or f"evaluations/{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        settings, tasks = settings_from(args), tuple(load_task(name, args.tasks_dir) for name in args.task_list)
    except ValueError as error:
        return fail(error)
    try:  # the server first: nothing is written into --out before the model check passed
        info = {"name": "scripted", "digest": None} if args.scripted else check_servers(
            args, lambda line: print(f"warning: {clean(line)}", file=sys.stderr))
    except ModelUnavailable as error:
        return fail(error)
    info = {"name": info["name"], "digest": args.model_digest or info["digest"]}
    evaluation = Evaluation(args.out, tasks, args.attempts, settings, model_identity(args),
                            None if args.scripted else args, "plan" if args.scripted else None, args.jobs,
                            all_candidates=args.all_candidates, parallel=args.parallel)
    commit, dirty = git_state()  # once: every attempt of this invocation runs this same code
    try:
        result = evaluate(evaluation, info, commit, dirty)
    except FolderProblem as error:
        return fail(error)
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished attempts are kept in {clean(str(args.out))}; "
              "run the same command to resume", file=sys.stderr)
        return 130
    print(f"\n{markdown_table(result['summary'])}\n\nwrote {args.out / 'summary.json'} and {args.out / 'report.html'}")
    if result["lost"]:
        return fail(f"{len(result['lost'])} attempt(s) were lost to the server or the harness, not graded; "
                    "run the same command again to retry them")
    return 0


def model_identity(args):
    """What makes two evaluations comparable, besides the loop's settings: the model and the
    options it is run with (not its URL: a server may move to another port)."""
    search = {"all_candidates": True} if getattr(args, "all_candidates", False) else {}  # a coverage run counts apart
    if args.scripted:
        return {"api": "scripted", **search}
    options = {key: getattr(args, key) for key in ("temperature", "seed", "num_ctx", "num_predict")}
    return {"api": args.api, "model": args.model, "think": args.think, "options": options, **search}


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
