"""CLI: one live run against a local Ollama model, written to a recording.

    ollama pull gemma4:e2b
    python record_run.py                      # writes recordings/recorded-run.json

It copies the sample to a temporary folder, runs the starting tests, runs the loop while
printing its progress, runs the final tests independently, and writes the recording
atomically. It exits 0 whenever a recording was written, whatever the verdict.

What this file deliberately is not: a judge (pytest is), or a way to make a recording look
live: `--scripted ABOUT` labels a run against fake_ollama.py as `source: "scripted"`.
"""
import argparse
import sys
import tempfile

import httpx

from local_model import DEFAULT_MODEL, TIMEOUT, LocalModel, ModelUnavailable
from printer import OneLineParser, Printer, summarise
from recording import FORMAT, fresh_sample, run_recorded, save
from repo_tools import RepoTools


def positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not value > 0:
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text!r}")
        return value
    return parse


def parse_args(argv):
    parser = OneLineParser(description="Record one live run of the coding loop.")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="Ollama model tag (default: %(default)s)")
    parser.add_argument("--host", help="Ollama URL (default: $OLLAMA_HOST, then http://127.0.0.1:11434)")
    parser.add_argument("--max-turns", type=positive(int), default=8, help="model requests at most")
    parser.add_argument("--deadline", type=positive(float), help="total seconds for the whole run")
    parser.add_argument("--output", default="recordings/recorded-run.json", help="where to write it")
    parser.add_argument("--no-think", dest="think", action="store_false", help="turn model thinking off")
    parser.add_argument("--show-thinking", action="store_true", help="print the model's thinking too")
    parser.add_argument("--require-sandbox", action="store_true", help="refuse to run tests unsandboxed")
    parser.add_argument("--scripted", metavar="ABOUT",
                        help="label the recording scripted (a fake server), with ABOUT naming the behaviour")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    model = live_model(args)
    try:
        model_info = model.check()  # fail before any work: server up, model pulled, tools supported
    except ModelUnavailable as error:
        return fail(error)
    with tempfile.TemporaryDirectory(prefix="coding-loop-") as folder:
        try:
            tools = RepoTools(fresh_sample(folder), sandbox_mode="require" if args.require_sandbox else "auto")
        except OSError as error:
            return fail(f"{error} (install bubblewrap, or drop --require-sandbox)")
        if tools.sandbox_warning:
            print(f"warning: {tools.sandbox_warning}", file=sys.stderr)
        print(f"recording {model.model} at {model.host} on a fresh copy of the sample")
        start_tests = tools.run_tests()
        print(f"starting tests: {summarise(start_tests)}")
        try:
            body = run_recorded(model, tools, max_turns=args.max_turns, deadline=args.deadline,
                                start_tests=start_tests, on_event=Printer(show_thinking=args.show_thinking))
        except KeyboardInterrupt:  # the loop has closed its stream on the way out
            print("\ninterrupted: nothing was written", file=sys.stderr)
            return 130
    return write(args, model, model_info, body)


def live_model(args):
    # With a deadline, a silent server may not hold the run past it (the loop checks the
    # deadline per chunk, so a stream that sends nothing needs the read timeout).
    timeout = TIMEOUT if args.deadline is None else httpx.Timeout(
        TIMEOUT.connect, read=min(TIMEOUT.read, args.deadline))
    return LocalModel(args.model, args.host, think=args.think, timeout=timeout)


def write(args, model, model_info, body):
    """Label, save and report the recording; exit 0 whatever the verdict."""
    body["settings"].update(think=args.think, keep_alive=model.keep_alive, options=model.options)
    head = {"format": FORMAT, "source": "scripted" if args.scripted else "live"}
    if args.scripted:
        head["about"] = args.scripted
    model_info = {"name": model_info["name"], "digest": model_info["digest"]}
    try:
        save(args.output, {**head, "model": model_info, **body})
    except OSError as error:
        return fail(f"cannot write {args.output}: {error.strerror or error}")
    tests = body["final_tests"]
    print(f"verdict: {body['verdict']} (independent pytest: exit_code {tests['exit_code']}, "
          f"{tests['passed']} passed, {tests['failed']} failed); tests unchanged: {body['tests_unchanged']}")
    print(f"wrote {args.output}")
    return 0


def fail(message):
    """One line on stderr that says what went wrong and what to do; no traceback."""
    print(f"error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
