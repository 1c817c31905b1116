"""CLI: the outer loop. Evaluate a configuration, rewrite it from the failing traces, repeat.

    python improve.py --scripted --start weak --tasks discount_percent,invoice_quantity,pagination_last_page,path_rules \\
        --holdout refund_limit,date_range_inclusive
    python improve.py --api openai --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b \\
        --start weak --holdout refund_limit,date_range_inclusive --attempts 1 --iterations 4
    python improve.py --replay improvements/TIME          # re-derive a finished improvement
    python improve.py --replay improvements/TIME --served # the same, from the recorded tool results

A configuration is one LoopSettings (prompt, offered tools, policies, levers). Each iteration is
an evaluation (evaluate.py's machinery and outputs, in OUT/iteration-<n>/); then the improver
reads the failing attempts and proposes the next configuration, one rationale per change, each
citing the attempts that are its evidence. It stops at --target, after --iterations, or when
nothing is left to change. The held-out tasks are never shown to the improver. Outputs:
OUT/improvement.json and OUT/report.html (the climb, every change and every attempt).

What this file deliberately is not: a search over every setting (each change has evidence) or
a judge: every pass rate comes from independent pytest verdicts.
"""
import sys
import time
from pathlib import Path

from evaluation.folder import FolderProblem
from evaluation.labels import Labels
from local_model import ModelUnavailable
from outer_loop.climb import LostAttempts, Plan, run_improvement
from outer_loop.rederive import replay_improvement
from attempt.adapters import check_servers, make_model
from command_line.cluster_flags import add_cluster_flags, cluster_choice, local_sandbox_problem
from command_line.shared_flags import add_model_flags, add_task_flags, parsed, positive
from command_line.printer import OneLineParser, clean, fail, run_cli
from settings.named import load_settings
from workspace.task_catalog import load_task, task_names

SCRIPTED_PROMPT = """Repair the code step by step. Run the tests first and read the failure.
Fix the function the failing test names, then run the tests again, and only then say you are done."""


def parse_args(argv):
    """The flags, as typed values: `model` (a ModelChoice), `start` (LoopSettings), `train` and
    `holdout` (tasks). A settings file or a task folder that cannot be used is a ValueError; a bad
    flag ends the program (exit 2)."""
    parser = OneLineParser(description="The outer loop: evaluate, improve the configuration from the traces, repeat.")
    add_model_flags(parser, built_in="scripted small model (models/scripted_model.py)")
    add_task_flags(parser, choose=False)
    parser.add_argument("--tasks", default="all", help="training and held-out tasks: all, or names separated by commas")
    parser.add_argument("--holdout", default="", help="tasks never shown to the improver, separated by commas")
    parser.add_argument("--attempts", type=positive(int), default=1, metavar="K", help="attempts per task")
    parser.add_argument("--iterations", type=positive(int), default=4, metavar="N", help="evaluations at most")
    parser.add_argument("--target", type=float, default=1.0, metavar="RATE", help="stop at this training pass@1")
    parser.add_argument("--start", "--settings", dest="start", default="weak", metavar="NAME|FILE",
                        help="the starting configuration: a named one (weak, plain, levers, small-model; default "
                             "means plain) or a JSON file of settings (default weak)")
    parser.add_argument("--improver", choices=("rules", "model"), default="rules")
    parser.add_argument("--jobs", type=positive(int), metavar="N",
                        help="attempts run at once (default: 1; with --ray, the cluster's CPUs)")
    add_cluster_flags(parser)
    parser.add_argument("--out", help="output folder (default: a new improvements/TIME); an existing one is resumed")
    parser.add_argument("--replay", metavar="DIR", help="re-run a finished improvement from its recordings and check it")
    parser.add_argument("--served", action="store_true",
                        help="with --replay: serve each tool's recorded result (no pytest runs): checks the loop's "
                             "behaviour and every decision in seconds")
    args = parsed(parser, argv, built_in="small-model")
    if args.served and not args.replay:
        parser.error("--served goes with --replay DIR")
    if not 0 < args.target <= 1:
        parser.error(f"--target is a pass rate above 0 and at most 1, not {args.target}")
    problem = local_sandbox_problem(args)
    if problem:
        raise ValueError(problem)
    args.cluster = cluster_choice(args)
    args.jobs = args.jobs or (None if args.cluster else 1)  # on a cluster: its CPUs
    args.out = Path(args.out or f"improvements/{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}")
    if not args.replay:  # a replay reads all it needs from the improvement it re-derives
        args.train, args.holdout = choose_tasks(parser, args)
        args.start = start_settings(args.start)
    return args


def choose_tasks(parser, args):
    """(training tasks, held-out tasks), validated; held-out ones never train."""
    known = task_names(args.tasks_dir)
    names = known if args.tasks == "all" else list(dict.fromkeys(n.strip() for n in args.tasks.split(",")))
    holdout = [n.strip() for n in args.holdout.split(",") if n.strip()]
    unknown = [name for name in names + holdout if name not in known]
    if unknown:
        parser.error(f"unknown task {', '.join(unknown)}; tasks: {', '.join(known) or '(none)'}")
    train = [name for name in names if name not in holdout]
    if not train:
        parser.error("every chosen task is held out: nothing is left to train on")
    return (tuple(load_task(name, args.tasks_dir) for name in train),
            tuple(load_task(name, args.tasks_dir) for name in holdout))


def start_settings(text):
    """The starting configuration: a named one (settings/: weak, plain, levers, ...; `default` is
    plain, the loop's own defaults) or a settings file."""
    try:
        return load_settings("plain" if text == "default" else text)
    except ValueError as error:  # it names --settings, the alias; the user typed (and the help shows) --start
        raise ValueError(str(error).replace("--settings ", "--start ", 1)) from None


def main(argv=None):
    try:  # task folders and a settings file are untrusted input: checked once, before the server is asked
        args = parse_args(argv)
        if args.replay:
            return replay_improvement(Path(args.replay), served=args.served)
        model, info = check_servers(args.model)
    except (ValueError, ModelUnavailable) as error:
        return fail(error)
    plan = Plan(args.out, args.train, args.holdout, args.attempts, args.iterations, args.target, args.start,
                args.improver, model, args.jobs, args.tasks_dir, args.cluster)
    prompt_chat = _scripted_prompt_chat() if model.api == "scripted" else make_model(model)
    try:
        record = run_improvement(plan, Labels.here(info), prompt_chat=prompt_chat)
    except (FolderProblem, ModelUnavailable, ValueError) as error:  # ValueError: no node has the sandbox
        return fail(error)
    except LostAttempts as error:
        return fail(f"{error}; run the same command again to retry them")
    except KeyboardInterrupt:
        print(f"\ninterrupted: what finished is kept in {clean(str(args.out))}; run the same command to resume",
              file=sys.stderr)
        return 130
    print_table(record, args.out)
    return 0


def _scripted_prompt_chat():
    """The scripted model's answer when asked to rewrite the prompt (`--improver model --scripted`)."""
    from models.scripted_turns import ScriptedTurns, done, text
    return ScriptedTurns(*[[text(SCRIPTED_PROMPT), done()]] * 20)


def print_table(record, out):
    """The climb as a markdown table, then where the files are."""
    print("\n| iteration | change | training pass@1 |\n|---|---|---|")
    for entry in record["iterations"]:
        changes = "; ".join(f"{c.get('field')} → {c.get('to') if c.get('field') != 'system' else '(rewritten)'}"
                            for c in entry["changes"]) or "(start)"
        print(f"| {entry['n']} | {clean(changes)} | {_rate(entry['train']['pass@1'])} |")
    holdout = record.get("holdout")
    if holdout:
        tasks = clean(", ".join(map(str, holdout["tasks"])))
        print(f"\nheld out ({tasks}): start {_rate(holdout['start']['pass@1'])}, "
              f"final {_rate(holdout['final']['pass@1'])}")
    print(f"stopped: {clean(str(record['stopped']))}\nwrote {out / 'improvement.json'} and {out / 'report.html'}")


def _rate(value):
    return f"{value:.2f}" if isinstance(value, (int, float)) else "n/a"


if __name__ == "__main__":
    run_cli(main)
