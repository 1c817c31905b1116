"""Aider, the reference peer, on the prepared library bugs (issue 34), judged the way fix.py is.

    python measurements/fix-libraries/aider_bugs.py OUT [NAME ...] --aider AIDER --edit-format whole|diff

From coding-loop's folder, with its own Python, after prepare.py put the bugs in /tmp/fix-libraries
(`--bugs-dir`). For each NAME (default: every entry of prepare.LIBRARIES), one attempt:

1. The start: the bug's tests run once, fix.py's way (fixing/project_pytest.py: the repository's
   own interpreter, its pytest configuration, `--tests` from prepare.py, sandboxed) on a fresh
   copy of the files git lists; the failing tests' names and the last 60 lines of that output
   are aider's one message, then "Make them pass by fixing the code, not the tests."
2. Aider: on a throwaway copy of the repository with its .git (so aider's repository map is on:
   the default map of 1,024 tokens), the file with the bug in its chat (`--file`, the file
   fix.py's localization shows the model), `--auto-test` with `--test-cmd` the same test run as
   the start (this script's `--run-tests` mode: the bug's interpreter by its absolute path, its
   selection, `--verbosity=-1` which is `-q`, sandboxed), `--edit-format` as given, and
   measurements/peers/aider_setup.py's model settings, environment and tripwire (nothing leaves
   the machine but the model server). `--no-auto-commits`: else aider asks the same model for a
   commit message after every edit. Killed at `--attempt-timeout` seconds (default 300, the
   issue's five minutes).
3. The verdict (aider_trees.py): aider's changes that are not test code go onto a fresh copy
   of the bug, whose tests run there, fix.py's way; aider_log.py reads what its logs say.

OUT/attempts.jsonl gets one line per bug and edit format, OUT/summary.json the repaired count per
format, OUT/NAME-FORMAT/ aider's logs (terminal output with --verbose, chat history, every
request it sent, analytics), its message and the diff. A second run into the same OUT skips the
bugs already there. The model server is asked first (its model list): when it does not answer,
the script says so in one line and writes nothing.

What this file deliberately is not: part of coding-loop. It never imports aider (a subprocess
from its own environment, README.md says how to install it), nothing imports it, and pytest
never collects it (measurements/ is outside the suite, pytest.ini).
"""
import argparse
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))  # run as a file: the project root first

from aider_attempt import run_bug  # noqa: E402
from aider_trees import bug_tests  # noqa: E402
from fixing.project_pytest import project_tests  # noqa: E402
from measurements.peers.aider_setup import Tripwire  # noqa: E402
from prepare import LIBRARIES  # noqa: E402

def server_problem(base_url, model):
    """None when the model server lists models (and `model` among them, when it names any), else why not."""
    try:
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the server, never a proxy
        with direct.open(base_url.rstrip("/") + "/models", timeout=10) as answer:
            listed = [m.get("id") for m in json.load(answer).get("data", []) if isinstance(m, dict)]
    except (OSError, ValueError, AttributeError) as error:
        return f"no model server answers at {base_url} ({error}); start it, or pass --base-url"
    if listed and model not in listed:
        return f"the server at {base_url} serves {', '.join(map(str, listed))}, not {model}; pass --model"
    return None


def summary(lines, header):
    formats = {}
    for line in lines:
        entry = formats.setdefault(line["edit_format"], {"bugs": 0, "repaired": [], "seconds": 0.0})
        entry["bugs"] += 1
        entry["seconds"] = round(entry["seconds"] + line.get("seconds", 0), 1)
        if line["verdict"] == "repaired":
            entry["repaired"].append(line["name"])
    return {**header, "formats": formats}


def run_tests_only(argv):
    """aider's --test-cmd: the bug's tests, fix.py's way (sandboxed), on aider's copy; pytest's exit code."""
    parser = argparse.ArgumentParser(prog="aider_bugs.py --run-tests")
    parser.add_argument("name", choices=LIBRARIES)
    parser.add_argument("copy", type=Path)
    parser.add_argument("--bugs-dir", type=Path, default=Path("/tmp/fix-libraries"))
    parser.add_argument("--test-timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    result = project_tests(args.copy, bug_tests(args.name, (args.bugs_dir / args.name).resolve(), args.test_timeout))
    print(result["output"])
    sys.exit(0 if result["exit_code"] == 0 else 1)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for attempts.jsonl, summary.json and each bug's files")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"bugs (default: all of {', '.join(LIBRARIES)})")
    parser.add_argument("--aider", required=True, help="the aider executable of its own throwaway venv")
    parser.add_argument("--edit-format", required=True, choices=("whole", "diff"))
    parser.add_argument("--bugs-dir", type=Path, default=Path("/tmp/fix-libraries"), help="where prepare.py put them")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-tokens", type=int, default=2048, help="per answer, as the harness sends")
    parser.add_argument("--context", type=int, default=8192, help="the server's context window per slot")
    parser.add_argument("--attempt-timeout", type=float, default=300, help="seconds before aider is killed")
    parser.add_argument("--request-timeout", type=float,
                        help="seconds aider waits for one answer before it sends it again (default: the attempt's)")
    parser.add_argument("--test-timeout", type=float, default=60.0, help="seconds per test run (fix.py's default)")
    args = parser.parse_args()
    args.no_history_summary = False  # aider's chat-history summarizer as it ships (aider_setup.py's README)
    unknown = [name for name in args.names if name not in LIBRARIES]
    if unknown:
        parser.error(f"unknown bug {unknown[0]}; known: {', '.join(LIBRARIES)}")
    return args


def main():
    args = parse_args()
    if not os.access(args.aider, os.X_OK):
        sys.exit(f"--aider {args.aider}: not an executable; measurements/peers/README.md says how to install it")
    missing = [name for name in args.names or LIBRARIES if not (args.bugs_dir / name / ".git").is_dir()]
    if missing:
        sys.exit(f"{args.bugs_dir / missing[0]} is not prepared; run measurements/fix-libraries/prepare.py {args.bugs_dir}")
    path = args.out / "attempts.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    done = {(line["name"], line["edit_format"]) for line in lines}
    todo = [name for name in args.names or LIBRARIES if (name, args.edit_format) not in done]
    for name in args.names or LIBRARIES:
        if name not in todo:
            print(f"{name} ({args.edit_format}): already in {path}, skipped")
    version = subprocess.run([args.aider, "--version"], capture_output=True, text=True, timeout=120).stdout.strip()
    header = {"peer": version, "model": args.model, "base_url": args.base_url, "temperature": args.temperature,
              "seed": args.seed, "max_tokens": args.max_tokens, "context": args.context,
              "attempt_timeout": args.attempt_timeout}
    tripwire = Tripwire()
    for name in todo:
        problem = server_problem(args.base_url, args.model)  # before each bug: a line needs a server
        if problem:
            sys.exit(f"error: {problem}; nothing written for {name}")
        args.out.mkdir(parents=True, exist_ok=True)
        print(f"{name} ({args.edit_format}) ...", flush=True)
        lines.append(run_bug(args, name, tripwire))
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(lines[-1]) + "\n")
        (args.out / "summary.json").write_text(json.dumps(summary(lines, header), indent=1) + "\n")
        line = lines[-1]
        print(f"  {line['verdict']} in {line.get('seconds')} s"
              f"{' (cut at the bound)' if line.get('timed_out') else ''}; changed {line.get('changed_files')}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--run-tests"]:
        run_tests_only(sys.argv[2:])
    else:
        try:
            main()
        except KeyboardInterrupt:
            sys.exit("interrupted: the bugs finished so far are in OUT; the same command goes on from there")
