"""CLI: tasks × attempts against a model, graded, summarised, and reported as one HTML page.

    python evaluate.py --scripted --jobs 2                     # offline: shipped scripted attempts
    python evaluate.py --api openai --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b --attempts 3
    python evaluate.py --scripted --ray auto                    # every attempt a Ray task on the cluster

Each attempt runs on a fresh copy of its task, in a worker process (with --ray, a Ray task on
any node of a cluster: evaluation/cluster.py), and is saved as
`OUT/attempts/<task>-<k>.json` (a recording plus its grades) the moment it finishes; then
`OUT/summary.json` and `OUT/report.html` are rewritten, so the page shows the run as it goes.
A finished attempt is never redone: run the same command again to resume. Attempts lost to the
server (it went away, the model is missing) are counted apart, never as the model's failures;
the run then exits non-zero, and the same command retries them.

What this file deliberately is not: the machinery (evaluation/runner.py runs any configuration,
and improve.py uses it too), part of the loop, or a judge (workspace/verdict.py is).
"""
import sys
import time
from pathlib import Path

from evaluation.folder import FolderProblem
from evaluation.grades import markdown_table
from evaluation.labels import Labels
from evaluation.runner import Evaluation, evaluate
from local_model import ModelUnavailable
from attempt.adapters import check_servers
from command_line.cluster_flags import add_cluster_flags, cluster_choice, local_sandbox_problem
from command_line.shared_flags import add_loop_flags, add_model_flags, add_task_flags, parsed, positive
from command_line.printer import OneLineParser, clean, fail, run_cli
from workspace.task_catalog import load_task, task_names


def parse_args(argv):
    """The flags, as typed values: `model` (a ModelChoice), `settings`, `tasks`. A settings file or
    a task folder that cannot be used is a ValueError; a bad flag ends the program (exit 2)."""
    parser = OneLineParser(description="Evaluate a model on every task, several attempts each.")
    add_model_flags(parser, built_in="scripted attempts (models/scripted_attempts.py)")
    add_loop_flags(parser)
    add_task_flags(parser, choose=False)
    parser.add_argument("--tasks", default="all", help="all, or names separated by commas")
    parser.add_argument("--attempts", type=positive(int), default=1, metavar="K", help="attempts per task")
    parser.add_argument("--jobs", type=positive(int), metavar="N",
                        help="attempts run at once (default: 1; with --ray, the cluster's CPUs)")
    add_cluster_flags(parser)
    parser.add_argument("--out", help="output folder (default: a new evaluations/TIME); an existing one is resumed")
    args = parsed(parser, argv, built_in="attempts")
    try:
        known = task_names(args.tasks_dir)
    except ValueError as error:
        parser.error(str(error))
    names = known if args.tasks == "all" else list(dict.fromkeys(n.strip() for n in args.tasks.split(",")))
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        parser.error(f"unknown task {', '.join(unknown) or '(none)'}; tasks: {', '.join(known) or '(none)'}")
    args.tasks = tuple(load_task(name, args.tasks_dir) for name in names)
    problem = local_sandbox_problem(args)
    if problem:
        raise ValueError(problem)
    args.cluster = cluster_choice(args)
    args.out = Path(args.out or f"evaluations/{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}")
    return args


def main(argv=None):
    try:  # task folders and a settings file are untrusted input: checked once, before the server is asked
        args = parse_args(argv)
    except ValueError as error:
        return fail(error)
    try:  # the server first: nothing is written into --out before the model check passed
        model, info = check_servers(args.model)
    except ModelUnavailable as error:
        return fail(error)
    jobs = args.jobs or (None if args.cluster else 1)  # on a cluster: its CPUs
    evaluation = Evaluation(args.out, args.tasks, args.attempts, args.settings, model, jobs,
                            all_candidates=args.all_candidates, cluster=args.cluster)
    try:
        result = evaluate(evaluation, Labels.here(info))
    except (FolderProblem, ValueError) as error:  # ValueError: no node of the cluster has the sandbox
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


if __name__ == "__main__":
    run_cli(main)
