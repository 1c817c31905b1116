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

from local_model import ModelUnavailable
from repo_tools import RepoTools
from command_line import ctrl_c
from attempt.adapters import check_servers, make_model
from command_line.shared_flags import add_loop_flags, add_model_flags, add_task_flags, parsed
from localizing.ranking import when_asked
from command_line.attempt_view import localization_line
from command_line.printer import OneLineParser, Printer, clean, fail, result_line, run_cli, warn
from runs.recording import recording_of, run_recorded
from runs.recording_file import keep, output_problem
from search.live import search_live
from workspace.passing import start_run
from workspace.task_catalog import fresh_copy, load_task


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
    stopped = None
    # SIGTERM (`kill`, CI) and SIGHUP (the terminal closed) stop as Ctrl-C does: what ran is kept, the copies go.
    with ctrl_c.stop_on_signals(), tempfile.TemporaryDirectory(prefix="coding-loop-") as folder:
        try:
            tools = RepoTools(fresh_copy(args.task, folder), task=args.task, sandbox_mode=args.sandbox_mode)
        except OSError as error:
            return fail(f"{error} (install bubblewrap, or drop --require-sandbox)")
        # Every line goes through one Printer: if the reader goes away (`| head`), the run goes on.
        show = Printer(show_thinking=args.show_thinking)
        try:
            body, model = record(args, info, tools, Path(folder), show)
        except KeyboardInterrupt as stop:  # every stream was closed by the stop; the copies go with the with-block
            stopped = kept_interrupted(args, info, stop)
    if stopped is not None:
        ctrl_c.say_stopped(f"interrupted: {stopped}; the copies were removed")
        return 130
    if body is None:
        return fail("every model server failed before one candidate could start; nothing was written")
    return write(args, model, info, body, show)


def record(args, info, tools, folder, show):
    """Run the loop (or a search of several candidates) while printing it; return (the
    recording's body, the model of the run it shows), or (None, None) when every server failed."""
    if tools.sandbox_warning:
        print(f"warning: {tools.sandbox_warning}", file=sys.stderr)
    show.line(f"recording {clean(info['name'])} at {clean(args.model.urls[0])} on a fresh copy of task "
              f"{clean(args.task.name)}")
    start_tests = start_run(tools)  # a start run that hangs: how many tests there are, collected
    show.line(f"starting tests: {result_line(start_tests)}")
    localization = when_asked(args.settings, tools, start_tests)  # once, for the run or every candidate
    if localization is not None:
        show.line(localization_line(localization))
    if args.settings.candidates > 1:  # several candidates, chosen by the tests
        body, model, _ = search_live(args.model, args.task, args.settings, start_tests, folder, show=show,
                                     localization=localization, sandbox_mode=args.sandbox_mode,
                                     all_candidates=args.all_candidates, show_model=args.show_model)
        return body, model
    model = make_model(args.model)
    return run_recorded(model, tools, args.settings, start_tests=start_tests, localization=localization,
                        on_event=show), model


def kept_interrupted(args, info, stop):
    """Write what an interrupted run did (ctrl_c.Interrupted's partial recording, marked
    interrupted) to --output; say where, or that nothing had run yet."""
    partial = getattr(stop, "partial", None)
    if not isinstance(partial, dict) or "task_name" not in partial:
        return "nothing was written (no run had started)"
    model = make_model(args.model)
    recording = recording_of(partial, source=args.model.source, about=args.model.about, model=info,
                             server=args.model.server(model.url), adapter=model.recorded())
    return f"{ctrl_c.what_ran(partial)} kept in {clean(keep(args.output, recording, warn))}"


def write(args, model, info, body, show):
    """Label, save and report the recording; exit 0 whatever the verdict."""
    recording = recording_of(body, source=args.model.source, about=args.model.about, model=info,
                             server=args.model.server(model.url), adapter=model.recorded())
    # Checked at the start, yet its folder may be gone now: the run is kept anyway, elsewhere.
    output = keep(args.output, recording, warn)
    tests = body["final_tests"]
    show.line(f"verdict: {body['verdict']} (independent pytest: {result_line(tests)}); "
                   f"tests unchanged: {body['tests_unchanged']}")
    show.line(f"wrote {output}")
    return 0


if __name__ == "__main__":
    run_cli(main)
