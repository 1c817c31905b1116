"""The flags that choose a model, the run's policies and the task, shared by record_run.py and evaluate.py.

`--api ollama` (default) builds a `LocalModel`; `--api openai --base-url URL` an `OpenAIModel`
for llama.cpp, vLLM, LM Studio or Ollama's /v1. The model options are flags; the adapter says
what it sent (`recorded()`), and a run's `--deadline` goes to `model.with_deadline(seconds)`
when the run starts, after the model was checked.

What this file deliberately is not: a config system. A run's settings are a named configuration
(settings/) and the flags that override it; the model's are flags.
"""
import argparse
import datetime
from pathlib import Path

from local_model import DEFAULT_MODEL, TIMEOUT, LocalModel, ModelUnavailable
from runs.printer import OneLineParser
from settings.named import load_settings, names
from workspace.task_catalog import SAMPLE_TASK


def positive(kind, allow_zero=False):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not (value >= 0 if allow_zero else value > 0) or value != value:
            raise argparse.ArgumentTypeError(f"expected a {'non-negative' if allow_zero else 'positive'} "
                                             f"{kind.__name__}, got {text!r}")
        return value
    return parse


def add_model_flags(parser):
    parser.add_argument("--api", choices=("ollama", "openai"), default="ollama",
                        help="ollama (native API, default) or openai (any OpenAI-compatible server)")
    parser.add_argument("--model", help=f"model name (default with --api ollama: {DEFAULT_MODEL})")
    parser.add_argument("--host", action="append", metavar="URL",
                        help="Ollama URL (default: $OLLAMA_HOST, then http://127.0.0.1:11434); again for more servers")
    parser.add_argument("--base-url", action="append", metavar="URL",
                        help="OpenAI-compatible URL, e.g. http://127.0.0.1:8080/v1; again for more servers")
    parser.add_argument("--parallel", type=positive(int), metavar="P",
                        help="requests at once on each server (llama-server: its -np slots; default: 1, or --jobs)")
    parser.add_argument("--model-digest", help="the model file's sha256, when the server does not report one")
    parser.add_argument("--temperature", type=positive(float, allow_zero=True))
    parser.add_argument("--seed", type=positive(int, allow_zero=True))
    parser.add_argument("--num-ctx", type=positive(int), help="context tokens (Ollama only; set on the server otherwise)")
    parser.add_argument("--num-predict", type=positive(int), help="most tokens per answer")
    parser.add_argument("--no-think", dest="think", action="store_false", help="turn model thinking off (Ollama)")


def add_loop_flags(parser, settings="plain"):
    """The loop's settings as flags: `--settings NAME|FILE` (default `settings`, a file in
    settings/), and one flag per field that overrides it. A flag left out is None, so only the
    flags given change the named configuration (settings_from)."""
    parser.add_argument("--settings", default=settings, metavar="NAME|FILE",
                        help=f"a named configuration ({', '.join(names())}) or a JSON file of settings "
                             f"(default {settings}); the flags below override one field each")
    parser.add_argument("--max-turns", type=positive(int), help="model requests at most")
    parser.add_argument("--deadline", type=positive(float), help="total seconds for one run")
    parser.add_argument("--text-calls", choices=("nudge", "run"),
                        help="tool calls written as text: tell the model (nudge) or run them")
    parser.add_argument("--verify-finish", type=positive(int, allow_zero=True), metavar="N",
                        help="run the tests when the model finishes; hand failures back at most N times")
    parser.add_argument("--context", choices=("tools", "preload"),
                        help="the first message: the ticket (tools), or also the failures and the files (preload)")
    parser.add_argument("--text-edits", choices=("off", "run"), help="code blocks and diffs in a reply: text (off) or edits")
    parser.add_argument("--check-edits", action=argparse.BooleanOptionalAction,
                        help="after a turn that edits, run the tests; green ends the run (tests_passed)")
    parser.add_argument("--candidates", type=positive(int), metavar="N",
                        help="trajectories per attempt, side by side, chosen by the tests")
    parser.add_argument("--all-candidates", action="store_true",
                        help="run every candidate even after one passed (to measure how coverage grows with N)")


def add_task_flags(parser, choose=True):
    """--tasks-dir DIR (tasks from any folder, in the shipped format) and, with `choose`, --task NAME."""
    if choose:
        parser.add_argument("--task", default=SAMPLE_TASK, metavar="NAME",
                            help=f"the task to run (default: {SAMPLE_TASK}, the card's sample)")
    parser.add_argument("--tasks-dir", metavar="DIR",
                        help="read tasks from DIR/<name>/task.json instead of the shipped tasks/")


FLAGGED = ("max_turns", "deadline", "text_calls", "verify_finish", "context", "text_edits", "check_edits", "candidates")


def settings_from(args):
    """The run's LoopSettings: the named configuration, then every flag given; a bad value or
    combination is a ValueError (one line on the terminal)."""
    given = {field: getattr(args, field) for field in FLAGGED if getattr(args, field, None) is not None}
    return load_settings(args.settings, **given)


def parse_args(argv=None, description="Record one live run of the coding loop."):
    parser = OneLineParser(description=description)
    add_model_flags(parser)
    add_loop_flags(parser)
    add_task_flags(parser)
    parser.add_argument("--output", default=None, help="where to write it (default: a new recordings/live-TIME.json)")
    parser.add_argument("--show-thinking", action="store_true", help="print the model's thinking too")
    parser.add_argument("--require-sandbox", action="store_true", help="refuse to run tests unsandboxed")
    parser.add_argument("--scripted", metavar="ABOUT",
                        help="label the recording scripted (a fake server), with ABOUT naming the behaviour")
    args = parser.parse_args(argv)
    check_model_flags(parser, args)
    args.output = args.output or new_output_name()
    return args


def new_output_name(folder="recordings"):
    """A file name no earlier run has taken: a live recording is never overwritten."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    name, number = f"{folder}/live-{stamp}.json", 1
    while Path(name).exists():
        number += 1
        name = f"{folder}/live-{stamp}-{number}.json"
    return name


def check_model_flags(parser, args):
    if args.api == "openai" and not (args.base_url and args.model):
        parser.error("--api openai needs --base-url URL and --model NAME")
    if args.api == "ollama" and args.base_url:
        parser.error("--base-url is for --api openai; for Ollama pass --host")
    if args.api == "openai" and args.host:
        parser.error("--host is for --api ollama; for an OpenAI-compatible server pass --base-url")
    if len(set(server_urls(args))) != len(server_urls(args)):
        parser.error("a server is named twice; pass each --base-url (or --host) once, and --parallel for its slots")


def server_urls(args):
    """Every server the flags name, in order (None: Ollama's default host)."""
    return list((args.base_url if args.api == "openai" else args.host) or [None])


def check_servers(args, warn):
    """Ask every server the flags name whether it serves the model; return what the first that
    does says (name, digest). One that does not is named in one line (`warn`) and left out of
    `args` for the run; ModelUnavailable when none does (the first one's words)."""
    found, first_error = None, None
    for url in server_urls(args):
        try:
            info = make_model(args, url).check()
        except ModelUnavailable as error:
            first_error = first_error or error
            if len(server_urls(args)) > 1:
                warn(f"server {url} is left out of this run: {error}")
            _drop(args, url)
            continue
        found = found or info
    if found is None:
        raise first_error
    return found


def _drop(args, url):
    servers = [u for u in server_urls(args) if u != url]
    if args.api == "openai":
        args.base_url = servers
    else:
        args.host = servers


def make_model(args, url=None, seed=None):
    """The chat callable the flags ask for, without a deadline yet (see `with_deadline`): on
    `url` (default: the first server named), sent `seed` when one is given (a search's candidate)."""
    options = {key: getattr(args, key) for key in ("temperature", "seed", "num_ctx", "num_predict")
               if getattr(args, key) is not None}
    if seed is not None:
        options["seed"] = seed
    url = url or server_urls(args)[0]
    if args.api == "openai":
        from openai_model import OpenAIModel  # imported only when asked for: it is the slowest import here
        return OpenAIModel(args.model, url, options=options, timeout=TIMEOUT)
    return LocalModel(args.model or DEFAULT_MODEL, url, think=args.think, options=options, timeout=TIMEOUT)
