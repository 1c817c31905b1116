"""CLI: repair failing tests in your own repository, with an approval gate before anything changes.

    python fix.py --repo ~/code/myproject
    python fix.py --repo . --tests tests/test_parse.py --api openai --base-url URL/v1 --model NAME

It runs the repository's tests its own way (its interpreter and pytest configuration, sandboxed,
on a copy). When some fail, it builds a task from the repository, runs the loop on a throwaway
copy, judges the result independently on a fresh copy of the starting tree, writes the recording
and the patch, and shows the verdict, the patch and its size. The repository changes only when
the patch passes the guardrails (repaired, no test file touched, at most --max-changed-lines
lines) and the user says yes (or passed --yes); even then, a file the user changed since the run
started stops it. Nothing else in the repository ever changes: no test runs there. Exit codes:
0 nothing to fix, or applied; 1 bad input (one line); 2 bad flags; 3 recorded, nothing applied.

What this file deliberately is not: a git client (it never commits, branches or stashes) or a way
to change tests. Its pieces are in fixing/ (its door lists them in reading order). Ctrl-C,
SIGTERM and SIGHUP (the terminal closed) end a run alike, at once: what ran is written to
--output marked interrupted, the temporary copies go, nothing is applied.
"""
import tempfile
from pathlib import Path

from attempt.adapters import check_servers
from attempt.run import Attempt, run_attempt
from command_line import ctrl_c
from command_line.attempt_view import AttemptView
from command_line.printer import Printer, fail, run_cli, warn
from fixing.first_steps import prepare
from fixing.flags import parse_args
from fixing.offer import offer
from fixing.repo import RepoProblem
from local_model import ModelUnavailable
from runs.recording_file import keep

NOT_APPLIED = 3


def main(argv=None):
    try:  # a settings file is untrusted input: checked once, before any work
        args = parse_args(argv)
    except ValueError as error:
        return fail(error)
    show = Printer(show_thinking=args.show_thinking)
    view = AttemptView(show, show_model=args.show_model)  # the attempt as it goes, fix.py's first steps too
    try:  # a `kill`, `timeout`, cancelled CI job or closed terminal stops it as Ctrl-C does
        with ctrl_c.stop_on_signals(), tempfile.TemporaryDirectory(prefix="coding-loop-fix-") as folder, view:
            prepared = prepare(args, Path(folder), view)  # the repository, its failing tests, the task
            if prepared is None:
                return 0  # nothing fails
            recording, tools = run(args, prepared, Path(folder), view)
            return 0 if offer(args, prepared, tools, recording, show) == "applied" else NOT_APPLIED
    except RepoProblem as problem:
        return fail(problem)
    except KeyboardInterrupt as stop:  # every stream was closed by the stop; the copies went with the with-block
        kept = getattr(stop, "partial", None)  # the run so far, labelled (attempt/run.py), when one had started
        kept = f"{ctrl_c.what_ran(kept)} kept in {keep(args.output, kept, warn)}; " if kept else ""
        ctrl_c.say_stopped(f"interrupted: nothing was applied; {kept}the copies were removed")
        return 130


def run(args, prepared, folder, view):
    """(the recording, the tools of the run it shows): one attempt, a search by default. The
    servers are asked first (one that does not answer, among several, is named and left out);
    RepoProblem when none answers."""
    try:  # fail before the loop: server up, model there
        choice, info = check_servers(args.model)
    except ModelUnavailable as error:
        raise RepoProblem(str(error)) from None
    attempt = Attempt(prepared.task, args.settings, choice, info, folder / "attempt", sandbox_mode=args.sandbox_mode,
                      all_candidates=args.all_candidates)
    try:
        ran = run_attempt(attempt, start_tests=prepared.start, on_event=view, localization=prepared.localization)
    except ctrl_c.Interrupted as stop:  # what ran is kept, marked interrupted (main writes it)
        stop.partial.update(prepared.recorded)
        raise
    if ran is None:
        raise RepoProblem("every model server failed before one candidate could start; nothing was applied")
    ran.recording.update(prepared.recorded)
    return ran.recording, ran.tools


if __name__ == "__main__":
    run_cli(main)
