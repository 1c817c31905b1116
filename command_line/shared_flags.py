"""The flags every command line shares, turned into typed values once, when they are parsed.

`add_model_flags`, `add_loop_flags` and `add_task_flags` add them to a parser
(command_line/cluster_flags.py adds evaluate.py's and improve.py's `--ray`); `parsed(parser, argv)` parses and builds, once: `args.model`, a models.choice.ModelChoice (the adapter, the
model, its servers and options), and, where the parser has the loop's flags, `args.settings`,
a LoopSettings (the named configuration of `--settings`, then each flag given). A configuration
carries the model options it was measured with (settings/small-model.json: temperature 0.7):
they fill the choice's options no flag gave. A bad flag or
combination is one line (exit 2); a settings file that cannot be used is a ValueError, which
the command line prints in one line (exit 1). The flags those values were built from are gone
from `args` afterwards, so nothing reads them twice.

`--scripted` means one thing on every command line: the model is scripted, not a real one, and
every recording says `source: "scripted"` (`--about TEXT` says what it plays). The script plays
at the server the flags name (a loopback fake), or, where a command line has one and no server
is named, in a scripted model built in (evaluate.py's shipped attempts, improve.py's small model).

What this file deliberately is not: a config system (settings/ holds the named configurations)
or where a model is built and asked (attempt/adapters.py).
"""
import argparse
import math
import os
from dataclasses import replace

from local_model import DEFAULT_HOST, DEFAULT_MODEL
from models.choice import OPTION_NAMES, ModelChoice
from settings.named import load_preset, names
from workspace.task_catalog import SAMPLE_TASK

# The model flags that are ModelChoice fields by the same name, then all of them (gone once it is made).
AS_NAMED = (*OPTION_NAMES, "parallel", "think", "scripted", "about")
MODEL_FLAGS = ("api", "host", "base_url", "model_digest", *AS_NAMED)
LOOP_FLAGS = ("max_turns", "deadline", "text_calls", "verify_finish", "context", "text_edits", "check_edits",
              "check_first", "candidates", "localize")


def positive(kind, allow_zero=False):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            value = None
        # NaN is no number, and infinity no count or time (JSON cannot even write it): both refused.
        if value is None or value != value or value == math.inf or not (value >= 0 if allow_zero else value > 0):
            raise argparse.ArgumentTypeError(f"expected a {'non-negative' if allow_zero else 'positive'} "
                                             f"{kind.__name__}, got {text!r}")
        return value
    return parse


def add_model_flags(parser, built_in=None):
    """The model's flags; `built_in`: the scripted model `--scripted` plays when no server is named."""
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
    where = f"; with no --host or --base-url, the built-in {built_in} play it" if built_in else \
        " at the server --host or --base-url names (a loopback fake)"
    parser.add_argument("--scripted", action="store_true",
                        help=f"the model is scripted, not a real one: recordings say source scripted{where}")
    parser.add_argument("--about", metavar="TEXT", help="with --scripted: what the scripted model plays")


def add_loop_flags(parser, settings="plain"):
    """The loop's settings as flags: `--settings NAME|FILE` (default `settings`, a file in
    settings/), and one flag per field that overrides it. A flag left out is None, so only the
    flags given change the named configuration."""
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
    parser.add_argument("--check-first", action=argparse.BooleanOptionalAction,
                        help="a check of the harness runs the tests that failed at the start first (default: on)")
    parser.add_argument("--candidates", type=positive(int), metavar="N",
                        help="trajectories per attempt, side by side, chosen by the tests")
    parser.add_argument("--localize", choices=("off", "tests"),
                        help="rank the likely faulty functions from the tests (one coverage run) before the model")
    parser.add_argument("--all-candidates", action="store_true",
                        help="run every candidate even after one passed (to measure how coverage grows with N)")


def add_task_flags(parser, choose=True):
    """--tasks-dir DIR (tasks from any folder, in the shipped format) and, with `choose`, --task NAME."""
    if choose:
        parser.add_argument("--task", default=SAMPLE_TASK, metavar="NAME",
                            help=f"the task to run (default: {SAMPLE_TASK}, the card's sample)")
    parser.add_argument("--tasks-dir", metavar="DIR",
                        help="read tasks from DIR/<name>/task.json instead of the shipped tasks/")


def parsed(parser, argv, built_in=None):
    """Parse `argv`; build the model (and the settings, where the parser has the loop's flags)."""
    args = parser.parse_args(argv)
    args.model = model_choice(parser, args, built_in)
    if hasattr(args, "max_turns"):
        name = args.settings
        args.settings, options = settings_from(args)
        args.model = with_options(args.model, options, name)
    return args


def with_options(choice, options, name):
    """`choice` with the model options the configuration `name` carries where no flag gave one;
    a ValueError naming it for an option no adapter takes, or a value a flag could not have."""
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(f"--settings {name}: unknown model option {unknown[0]!r}; options: {', '.join(OPTION_NAMES)}")
    try:
        replace(choice, **options)  # checked whole, even where a flag wins
    except ValueError as error:
        raise ValueError(f"--settings {name}: option {error}") from None
    if choice.api == "scripted":  # a built-in scripted model is sent nothing
        return choice
    return replace(choice, **{key: value for key, value in options.items() if getattr(choice, key) is None})


def model_choice(parser, args, built_in=None):
    """The ModelChoice the model flags name, checked; a bad combination is one line (exit 2)."""
    if args.api == "ollama" and args.base_url:
        parser.error("--base-url is for --api openai; for Ollama pass --host")
    if args.api == "openai" and args.host:
        parser.error("--host is for --api ollama; for an OpenAI-compatible server pass --base-url")
    # A base URL without a scheme (`127.0.0.1:8080/v1`) means http, as Ollama's SDK already reads
    # a --host; the openai SDK would fail on it and the server that answers would be called absent.
    urls = [url if "://" in url else f"http://{url}" for url in args.base_url or []] or args.host
    if args.scripted and not urls and built_in is None:
        parser.error("--scripted needs the server that plays the script: pass --host or --base-url")
    given = {key: getattr(args, key) for key in AS_NAMED}
    try:
        if args.scripted and not urls:  # the built-in scripted model: no server, no model flags
            choice = ModelChoice(api="scripted", name=built_in, scripted=True, about=args.about,
                                 parallel=args.parallel)
        else:
            choice = ModelChoice(api=args.api, name=args.model, urls=tuple(urls or default_host(args.api)),
                                 digest=args.model_digest, **given)
    except ValueError as error:
        parser.error(str(error))
    for key in MODEL_FLAGS:
        delattr(args, key)
    return choice


def settings_from(args):
    """(the run's LoopSettings: the named configuration, then every flag given; the model options
    the configuration carries). A bad value or combination is a ValueError (one line on the terminal)."""
    given = {field: getattr(args, field) for field in LOOP_FLAGS if getattr(args, field) is not None}
    for field in LOOP_FLAGS:
        delattr(args, field)
    return load_preset(args.settings, **given)


def default_host(api):
    """The server no flag names: Ollama's (`$OLLAMA_HOST`, else its usual address), resolved here
    so that every run, search and worker process is sent to one and the same URL."""
    return [os.environ.get("OLLAMA_HOST") or DEFAULT_HOST] if api == "ollama" else []
