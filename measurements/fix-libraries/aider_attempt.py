"""One attempt of aider on one prepared bug, for aider_bugs.py: the start run, aider's one
message, its argv, its run on a throwaway copy, the verdict, and the attempt's line.

- `start_message(start)`: the failing tests' names, the last 60 lines of the start run's output
  (what a developer would paste), then "Make them pass by fixing the code, not the tests."
- `aider_argv(...)`: measurements/peers/aider_setup.py's LOCAL_FLAGS and settings files, git and
  the repository map on, `--no-auto-commits`, `--auto-test` with the bug's own test run as
  `--test-cmd` (aider_bugs.py's `--run-tests` mode), the bug's file in the chat.
- `run_bug(args, name, tripwire)`: all of it, killed at `--attempt-timeout`; its line for
  attempts.jsonl.

What this file deliberately is not: part of coding-loop, or the verdict (aider_trees.py).
"""
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aider_log import limits, repo_map, text_of
from aider_trees import GIT, aider_copy, bug_tests, fresh_tree, judge
from fixing.project_pytest import project_tests
from measurements.peers.aider_setup import LOCAL_FLAGS, aider_env, aider_files, run_aider
from measurements.peers.aider_tasks import _usage
from prepare import LIBRARIES
from workspace.files import remove_tree
from workspace.pytest_output import failures

SCRIPT = Path(__file__).resolve().with_name("aider_bugs.py")  # its --run-tests mode is aider's --test-cmd
ASK = "Make them pass by fixing the code, not the tests."
TAIL_LINES = 60  # of the start run's output, in the message: what a developer would paste
FAILING_SHOWN = 30


def start_message(start):
    """Aider's one message: the failing tests, the tail of the start run, the ask."""
    failing = [test for test, _ in failures(start["output"], limit=None)]
    more = f"\n(and {len(failing) - FAILING_SHOWN} more)" if len(failing) > FAILING_SHOWN else ""
    tail = "\n".join(start["output"].rstrip().splitlines()[-TAIL_LINES:])
    return (f"These tests fail:\n{chr(10).join(failing[:FAILING_SHOWN])}{more}\n\n"
            f"The end of their pytest output:\n```\n{tail}\n```\n\n{ASK}")


def aider_argv(args, name, copy, folder, keep, message_file):
    """Aider's argv for one bug: LOCAL_FLAGS (aider_setup.py), git and the repository map on."""
    settings, metadata = aider_files(folder, args, args.seed, args.edit_format)
    test_cmd = shlex.join([sys.executable, str(SCRIPT), "--run-tests", name, str(copy),
                           "--bugs-dir", str(args.bugs_dir), "--test-timeout", str(args.test_timeout)])
    return [args.aider, "--model", f"openai/{args.model}", "--model-settings-file", str(settings),
            "--model-metadata-file", str(metadata), "--timeout", str(args.request_timeout or args.attempt_timeout),
            "--edit-format", args.edit_format, "--no-auto-commits", "--no-dirty-commits", "--no-gitignore",
            "--auto-test", "--test-cmd", test_cmd, *LOCAL_FLAGS,
            "--analytics-log", str(keep / "aider.analytics.jsonl"),
            "--chat-history-file", str(keep / "aider.chat.history.md"),
            "--input-history-file", str(keep / "aider.input.history"),
            "--llm-history-file", str(keep / "aider.llm.history"),
            "--file", LIBRARIES[name].path, "--message-file", str(message_file)]


def run_bug(args, name, tripwire):
    """One attempt of aider on bug `name`; its line for attempts.jsonl."""
    repo = (args.bugs_dir / name).resolve()
    keep, seen = args.out / f"{name}-{args.edit_format}", len(tripwire.seen)
    keep.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="aider-bugs-"))
    try:
        command = bug_tests(name, repo, args.test_timeout)
        start = project_tests(fresh_tree(repo, command, folder / "start"), command)
        if start["exit_code"] == 0 or start["timed_out"]:
            return {"name": name, "edit_format": args.edit_format, "verdict": "no start",
                    "why": "the tests pass at the start" if start["exit_code"] == 0 else "the start run timed out"}
        message = start_message(start)
        (keep / "message.txt").write_text(message, encoding="utf-8")
        copy = aider_copy(repo, folder)
        base = subprocess.run([*GIT, "-C", str(copy), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        home = folder / "home"
        home.mkdir()
        argv = aider_argv(args, name, copy, folder, keep, keep / "message.txt")
        started = time.perf_counter()
        exit_code, timed_out = run_aider(argv, copy, aider_env(args, home, tripwire), args.attempt_timeout,
                                         keep / "aider.log")
        seconds = round(time.perf_counter() - started, 1)
        judged = judge(name, repo, copy, base, folder, args.test_timeout)
    finally:
        remove_tree(folder)
    (keep / "repo.diff").write_text(judged.pop("diff"), encoding="utf-8")
    log = text_of(keep / "aider.log")
    return {"name": name, "edit_format": args.edit_format, "file": LIBRARIES[name].path, **judged,
            "seconds": seconds, "aider_exit_code": exit_code, "timed_out": timed_out,
            "start_tests": {key: start.get(key) for key in ("passed", "failed", "errors", "exit_code")},
            "repo_map": repo_map(log, text_of(keep / "aider.llm.history")), **_usage(keep),
            "model_errors": sum("litellm." in line and "Error" in line for line in log.splitlines()),
            **limits(log),
            "outside_requests": tripwire.seen[seen:], "aider_argv": argv}

