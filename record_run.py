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
look live: `--scripted ABOUT` labels a run against a fake server as `source: "scripted"`.
"""
import sys
import tempfile
from pathlib import Path

from local_model import ModelUnavailable
from repo_tools import RepoTools
from runs.flags import check_servers, make_model, parse_args, settings_from
from runs.printer import Printer, clean, fail, result_line, run_cli
from runs.recording import recording_of, run_recorded, save
from search.live import search_live
from workspace.task_catalog import fresh_copy, load_task


def main(argv=None):
    args = parse_args(argv, description="Record one live run of the coding loop.")
    problem = output_problem(args.output)
    if problem:
        return fail(problem)
    try:  # a task folder and a settings file are untrusted input: checked once, before the server is asked
        task, settings = load_task(args.task, args.tasks_dir), settings_from(args)
    except ValueError as error:
        return fail(error)
    model = make_model(args)
    try:
        model_info = check_servers(args, lambda line: print(f"warning: {clean(line)}", file=sys.stderr))
    except ModelUnavailable as error:  # fail before any work: server up, model there, tools supported
        return fail(error)
    with tempfile.TemporaryDirectory(prefix="coding-loop-") as folder:
        try:
            tools = RepoTools(fresh_copy(task, folder), task=task,
                              sandbox_mode="require" if args.require_sandbox else "auto")
        except OSError as error:
            return fail(f"{error} (install bubblewrap, or drop --require-sandbox)")
        if tools.sandbox_warning:
            print(f"warning: {tools.sandbox_warning}", file=sys.stderr)
        # Every line goes through one Printer: if the reader goes away (`| head`), the run goes on.
        show = Printer(show_thinking=args.show_thinking)
        show.line(f"recording {clean(model.model)} at {clean(model.url)} on a fresh copy of task {clean(task.name)}")
        start_tests = tools.run_tests()
        show.line(f"starting tests: {result_line(start_tests)}")
        try:
            if settings.candidates > 1:  # several candidates, chosen by the tests
                body, model, _ = search_live(args, task, settings, start_tests, Path(folder), say=show.line,
                                             sandbox_mode="require" if args.require_sandbox else "auto")
            else:
                body = run_recorded(model, tools, settings, start_tests=start_tests, on_event=show)
        except KeyboardInterrupt:  # the loop has closed its stream on the way out
            print("\ninterrupted: nothing was written", file=sys.stderr)
            return 130
    if body is None:
        return fail("every model server failed before one candidate could start; nothing was written")
    return write(args, model, model_info, body, show)


def output_problem(output):
    """Why the recording could not be written at `output`, found before minutes of model time."""
    path = Path(output)
    if path.is_dir():
        return f"--output {output} is a folder; give a file name"
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".coding-loop-check-"):
            pass
    except OSError as error:
        return f"cannot write to {folder}: {error.strerror or error}; pass another --output"
    return None


def write(args, model, model_info, body, show):
    """Label, save and report the recording; exit 0 whatever the verdict."""
    recording = recording_of(body, source="scripted" if args.scripted else "live", about=args.scripted,
                             model={"name": model_info["name"], "digest": args.model_digest or model_info["digest"]},
                             server={"api": args.api, "url": model.url}, adapter=model.recorded())
    output = args.output
    try:
        save(output, recording)
    except OSError as error:  # checked at the start, yet gone now: keep the run anyway
        output = Path(tempfile.gettempdir()) / Path(args.output).name
        print(f"warning: cannot write {args.output} ({error.strerror or error}); saving to {output}",
              file=sys.stderr)
        save(output, recording)
    tests = body["final_tests"]
    show.line(f"verdict: {body['verdict']} (independent pytest: {result_line(tests)}); "
              f"tests unchanged: {body['tests_unchanged']}")
    show.line(f"wrote {output}")
    return 0


if __name__ == "__main__":
    run_cli(main)
