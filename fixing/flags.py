"""fix.py's command line: the shared model and loop flags (command_line/shared_flags.py), plus its own.

`--tests` takes pytest's arguments as one string (split like a shell would), because they
are pytest's, not ours: `--tests "tests/test_parse.py -k dates"`. A value that starts with "-"
is taken as written too (`--tests "-v"`, `--tests "-k dates"`), though argparse would read it as
a flag: it is attached to --tests before parsing, unless it is one of fix.py's own flags.

`parse_args` gives the model (a ModelChoice) and the settings (a LoopSettings) as typed values,
built once (command_line/shared_flags.py: a bad settings file is a ValueError, which fix.py prints in one line).

What this file deliberately is not: where the flags' behaviour lives (fix.py and the rest of
fixing/) or a config file reader (settings/ is).
"""
import datetime
import re
import shlex
import sys
from pathlib import Path

from command_line.shared_flags import add_loop_flags, add_model_flags, parsed, positive
from command_line.printer import OneLineParser

FIXES = Path(__file__).resolve().parent.parent / "fixes"  # never inside the user's repository
EPILOG = ("exit codes: 0 nothing to fix, or the patch was applied; 1 bad input or a failure before the run; "
          "2 bad flags; 3 the run was recorded, but nothing was applied")


def parse_args(argv=None):
    parser = OneLineParser(prog="fix.py", epilog=EPILOG, description=(
        "Repair failing tests in your own repository. Nothing in it changes until you approve the patch."))
    add_repository_flags(parser)
    add_model_flags(parser)
    add_loop_flags(parser, settings="small-model-explain")  # a user who wants a repair gets what measured best
    add_offer_flags(parser)
    args = parsed(parser, pytest_value_attached(parser, sys.argv[1:] if argv is None else argv))
    try:
        args.tests = shlex.split(args.tests)
    except ValueError as error:
        parser.error(f"--tests: {error}")
    args.output = args.output or new_output(Path(args.repo).expanduser().resolve().name)
    args.patch = args.patch or str(Path(args.output).with_suffix(".patch"))
    args.sandbox_mode = "require" if args.require_sandbox else "auto"
    return args


def pytest_value_attached(parser, argv):
    """`argv` with `--tests VALUE` written `--tests=VALUE` when VALUE starts with "-" and is not
    a flag of fix.py's own (argparse refuses such a value as "expected one argument")."""
    argv, ours = list(argv), set(parser._option_string_actions)
    for at, word in enumerate(argv[:-1]):
        value, first = argv[at + 1], argv[at + 1].split("=")[0].split()[:1]  # `--api` of `--api=openai`
        if word == "--tests" and value.startswith("-") and first and first[0] not in ours:
            argv[at:at + 2] = [f"--tests={value}"]
            break
    return argv


def new_output(name):
    """fixes/NAME-TIME.json, a name no earlier run has taken (nor its .patch)."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    name = re.sub(r"[^\w.-]", "_", name) or "repo"
    path, number = FIXES / f"{name}-{stamp}.json", 1
    while path.exists() or path.with_suffix(".patch").exists():
        number += 1
        path = FIXES / f"{name}-{stamp}-{number}.json"
    return str(path)


def add_repository_flags(parser):
    parser.add_argument("--repo", required=True, metavar="PATH", help="the repository whose tests fail")
    parser.add_argument("--ticket", help="what is wrong, in your words (default: the failing tests and their errors)")
    parser.add_argument("--tests", default="", metavar="PYTEST_ARGS",
                        help="which tests, as pytest arguments in one string (default: the project's own choice)")
    parser.add_argument("--editable", nargs="+", action="extend", default=[], metavar="GLOB",
                        help="the files the model may edit (default: the Python code; never the tests, the modules "
                             "only they import, or packaging)")
    parser.add_argument("--readable", nargs="+", action="extend", default=[], metavar="GLOB",
                        help="more files the model may read, shown to it first (default: the Python files, "
                             "within a budget, the code the failing tests call first)")
    parser.add_argument("--python", metavar="PATH",
                        help="the project's interpreter (default: PATH/.venv/bin/python if present, else this one)")
    parser.add_argument("--test-timeout", type=positive(float), default=60.0, metavar="SECONDS",
                        help="the most one test run may take (default 60)")
    parser.add_argument("--require-sandbox", action="store_true", help="refuse to run tests unsandboxed")


def add_offer_flags(parser):
    parser.add_argument("--yes", action="store_true", help="apply a patch that passes the guardrails without asking")
    parser.add_argument("--max-changed-lines", type=positive(int), default=80, metavar="N",
                        help="never apply a patch that adds and removes more lines than this (default 80)")
    parser.add_argument("--patch", metavar="FILE", help="where to write the patch (default: beside the recording)")
    parser.add_argument("--output", metavar="FILE", help="where to write the recording (default: fixes/NAME-TIME.json)")
    parser.add_argument("--show-thinking", action="store_true", help="print the model's thinking too")
    parser.add_argument("--show-model", action="store_true",
                        help="in a search, stream a running candidate's text as a single run does")
