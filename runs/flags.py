"""The flags that choose a model, the run's policies and the task, shared by record_run.py and evaluate.py.

`--api ollama` (default) builds a `LocalModel`; `--api openai --base-url URL` an `OpenAIModel`
for llama.cpp, vLLM, LM Studio or Ollama's /v1. The model options are flags; the adapter says
what it sent (`recorded()`), and a run's `--deadline` goes to `model.with_deadline(seconds)`
when the run starts, after the model was checked.

What this file deliberately is not: a config system. Every setting is a flag with a default.
"""
import argparse
import datetime
from pathlib import Path

from agent_loop import LoopSettings
from local_model import DEFAULT_MODEL, TIMEOUT, LocalModel
from runs.printer import OneLineParser
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
    parser.add_argument("--host", help="Ollama URL (default: $OLLAMA_HOST, then http://127.0.0.1:11434)")
    parser.add_argument("--base-url", help="OpenAI-compatible URL, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model-digest", help="the model file's sha256, when the server does not report one")
    parser.add_argument("--temperature", type=positive(float, allow_zero=True))
    parser.add_argument("--seed", type=positive(int, allow_zero=True))
    parser.add_argument("--num-ctx", type=positive(int), help="context tokens (Ollama only; set on the server otherwise)")
    parser.add_argument("--num-predict", type=positive(int), help="most tokens per answer")
    parser.add_argument("--no-think", dest="think", action="store_false", help="turn model thinking off (Ollama)")


def add_loop_flags(parser, levers=()):
    """The loop's settings as flags; each default is LoopSettings' own (or `levers`' where a
    command starts from agent_loop.LEVERS), so it is set in one place."""
    default = LoopSettings(**dict(levers))
    parser.add_argument("--max-turns", type=positive(int), default=default.max_turns, help="model requests at most")
    parser.add_argument("--deadline", type=positive(float), default=default.deadline, help="total seconds for one run")
    parser.add_argument("--text-calls", choices=("nudge", "run"), default=default.text_calls,
                        help=f"tool calls written as text: tell the model (nudge) or run them (default {default.text_calls})")
    parser.add_argument("--verify-finish", type=positive(int, allow_zero=True), default=default.verify_finish,
                        metavar="N", help="run the tests when the model finishes; hand failures back at most N times "
                                          f"(default {default.verify_finish})")
    parser.add_argument("--context", choices=("tools", "preload"), default=default.context,
                        help=f"the first message: the ticket (tools), or also the failures and the files "
                             f"(preload; default {default.context})")
    parser.add_argument("--text-edits", choices=("off", "run"), default=default.text_edits,
                        help=f"code blocks and diffs in a reply: text (off) or edits to run (default {default.text_edits})")


def add_task_flags(parser, choose=True):
    """--tasks-dir DIR (tasks from any folder, in the shipped format) and, with `choose`, --task NAME."""
    if choose:
        parser.add_argument("--task", default=SAMPLE_TASK, metavar="NAME",
                            help=f"the task to run (default: {SAMPLE_TASK}, the card's sample)")
    parser.add_argument("--tasks-dir", metavar="DIR",
                        help="read tasks from DIR/<name>/task.json instead of the shipped tasks/")


def settings_from(args):
    """The run's LoopSettings from the parsed flags; a bad combination is a ValueError."""
    return LoopSettings(max_turns=args.max_turns, deadline=args.deadline, text_calls=args.text_calls,
                        verify_finish=args.verify_finish, context=args.context, text_edits=args.text_edits)


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


def make_model(args):
    """The chat callable the flags ask for, without a deadline yet (see `with_deadline`)."""
    options = {key: getattr(args, key) for key in ("temperature", "seed", "num_ctx", "num_predict")
               if getattr(args, key) is not None}
    if args.api == "openai":
        from openai_model import OpenAIModel  # imported only when asked for: it is the slowest import here
        return OpenAIModel(args.model, args.base_url, options=options, timeout=TIMEOUT)
    return LocalModel(args.model or DEFAULT_MODEL, args.host, think=args.think, options=options, timeout=TIMEOUT)
