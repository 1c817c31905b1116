"""CLI: one live run against a local model, written to a recording.

    ollama pull gemma4:e2b
    python record_run.py                      # writes recordings/live-<time>.json
    python record_run.py --api openai --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b
    python record_run.py --task refund_limit                # another shipped task
    python record_run.py --tasks-dir ~/my-tasks --task NAME   # a task from any folder

It checks the output path, the task and the server first, copies the task's repository (the
sample's by default) to a temporary folder, runs the starting tests, runs the loop while
printing its progress, runs the independent verdict, and writes the recording atomically. It
exits 0 whenever a recording was written, whatever the verdict; a run is never lost (if the
output cannot be written at the end, the recording goes to a temporary file and the path is
printed).

What this file deliberately is not: a judge (verdict.py is), or a way to make a recording
look live: `--scripted --about TEXT` labels a run against a fake server `source: "scripted"`.
"""
import datetime
import sys
import tempfile
from pathlib import Path

from attempt.adapters import check_servers
from attempt.run import Attempt, run_attempt
from command_line import ctrl_c
from command_line.attempt_view import AttemptView
from command_line.printer import OneLineParser, Printer, clean, fail, result_line, run_cli, warn
from command_line.shared_flags import add_loop_flags, add_model_flags, add_task_flags, parsed
from local_model import ModelUnavailable
from runs.recording_file import keep, output_problem
from workspace import sandbox
from workspace.task_catalog import load_task


def parse_args(argv=None):
    """The flags, as typed values: `model` (a ModelChoice), `settings`, `task`. A settings file or
    a task folder that cannot be used is a ValueError; a bad flag ends the program (exit 2)."""
    parser = OneLineParser(description="Record one live run of the coding loop.")
    add_model_flags(parser)
    add_loop_flags(parser)
    add_task_flags(parser)
    parser.add_argument("--output", default=None, help="where to write it (default: a new recordings/live-TIME.json)")
    parser.add_argument("--show-thinking", action="store_true", help="print the model's thinking too")
    parser.add_argument("--show-model", action="store_true",
                        help="in a search, stream a running candidate's text as a single run does")
    parser.add_argument("--require-sandbox", action="store_true", help="refuse to run tests unsandboxed")
    args = parsed(parser, argv)
    args.task = load_task(args.task, args.tasks_dir)
    args.output = args.output or new_output_name()
    args.sandbox_mode = "require" if args.require_sandbox else "auto"
    return args


def new_output_name(folder="recordings"):
    """A file name no earlier run has taken: a live recording is never overwritten."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    name, number = f"{folder}/live-{stamp}.json", 1
    while Path(name).exists():
        number += 1
        name = f"{folder}/live-{stamp}-{number}.json"
    return name


def main(argv=None):
    try:  # a task folder and a settings file are untrusted input: checked once, before the server is asked
        args = parse_args(argv)
    except ValueError as error:
        return fail(error)
    problem = output_problem(args.output)
    if problem:
        return fail(problem)
    try:  # fail before any work: server up, model there, tools supported
        args.model, info = check_servers(args.model)
    except ModelUnavailable as error:
        return fail(error)
    kind, warning = sandbox.detect()
    if args.sandbox_mode == "require" and kind == "none":
        return fail(f"a sandbox is required but unavailable: {warning} (install bubblewrap, or drop --require-sandbox)")
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    # Every line goes through one Printer: if the reader goes away (`| head`), the run goes on.
    show = Printer(show_thinking=args.show_thinking)
    show.line(f"recording {clean(info['name'])} at {clean(args.model.urls[0])} on a fresh copy of task "
              f"{clean(args.task.name)}")
    # SIGTERM (`kill`, CI) and SIGHUP (the terminal closed) stop as Ctrl-C does: what ran is kept, the copies go.
    with ctrl_c.stop_on_signals(), tempfile.TemporaryDirectory(prefix="coding-loop-") as folder:
        attempt = Attempt(args.task, args.settings, args.model, info, folder, sandbox_mode=args.sandbox_mode,
                          all_candidates=args.all_candidates)
        try:
            with AttemptView(show, show_model=args.show_model) as view:
                ran = run_attempt(attempt, on_event=view)
        except KeyboardInterrupt as stop:  # every stream was closed by the stop; the copies go with the with-block
            ran, stopped = None, kept_interrupted(args, stop)
        else:
            stopped = None
    if stopped is not None:
        ctrl_c.say_stopped(f"interrupted: {stopped}; the copies were removed")
        return 130
    if ran is None:
        return fail("every model server failed before one candidate could start; nothing was written")
    return write(args, ran.recording, show)


def kept_interrupted(args, stop):
    """Write what an interrupted run did (the labelled partial recording ctrl_c.Interrupted carries,
    marked interrupted) to --output; say where, or that nothing had run yet."""
    partial = getattr(stop, "partial", None)
    if not isinstance(partial, dict) or "task_name" not in partial:
        return "nothing was written (no run had started)"
    return f"{ctrl_c.what_ran(partial)} kept in {clean(keep(args.output, partial, warn))}"


def write(args, recording, show):
    """Save and report the recording; exit 0 whatever the verdict."""
    # Checked at the start, yet its folder may be gone now: the run is kept anyway, elsewhere.
    output = keep(args.output, recording, warn)
    show.line(f"verdict: {recording['verdict']} (independent pytest: {result_line(recording['final_tests'])}); "
              f"tests unchanged: {recording['tests_unchanged']}")
    show.line(f"wrote {output}")
    return 0


if __name__ == "__main__":
    run_cli(main)
