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
3. The verdict: the files aider changed (its tree against the bug commit: tracked, deleted and
   new files; aider's own `.aider*` caches aside) that are not test code (named like tests, the
   support code they import, or pytest's and Python's configuration) go onto a fresh copy of
   the bug, and its tests run there, fix.py's way. "repaired" iff pytest exits 0 and aider
   changed no test file.

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
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))  # run as a file: the project root first

from fixing.project_pytest import default_python, plugin_modules, project_command, project_tests  # noqa: E402
from fixing.repo import list_files, starting_tree  # noqa: E402
from measurements.peers.aider_setup import LOCAL_FLAGS, Tripwire, aider_env, aider_files, run_aider  # noqa: E402
from measurements.peers.aider_tasks import _usage  # noqa: E402
from prepare import LIBRARIES  # noqa: E402
from workspace.files import remove_tree  # noqa: E402
from workspace.pytest_output import failures  # noqa: E402
from workspace.user_tests import find_test_code, is_test_or_config  # noqa: E402

ASK = "Make them pass by fixing the code, not the tests."
TAIL_LINES = 60  # of the start run's output, in the message: what a developer would paste
FAILING_SHOWN = 30
# Aider's own files in the copy (its repository map's tag cache): never part of a repair.
AIDER_OWN = (".aider",)
# How aider's first request shows its repository map (aider/coders/base_prompts.py, repo_content_prefix).
MAP_PREFIX = "Here are summaries of some files present in my git repository."
GIT = ["git", "-c", "core.quotepath=off"]


def bug_tests(name, repo, timeout):
    """fix.py's PytestCommand for the bug at `repo` (its real path): its interpreter, its `--tests`."""
    return project_command(repo, default_python(repo), shlex.split(LIBRARIES[name].tests), timeout)


def fresh_tree(repo, command, folder):
    """fix.py's starting tree: the files git lists (no .git, no .venv) copied into `folder`."""
    starting_tree(repo, list_files(repo, skip=command.places), folder)
    return folder


def start_message(start):
    """Aider's one message: the failing tests, the tail of the start run, the ask."""
    failing = [test for test, _ in failures(start["output"], limit=None)]
    more = f"\n(and {len(failing) - FAILING_SHOWN} more)" if len(failing) > FAILING_SHOWN else ""
    tail = "\n".join(start["output"].rstrip().splitlines()[-TAIL_LINES:])
    return (f"These tests fail:\n{chr(10).join(failing[:FAILING_SHOWN])}{more}\n\n"
            f"The end of their pytest output:\n```\n{tail}\n```\n\n{ASK}")


def aider_copy(repo, folder):
    """A throwaway copy of the bug's repository, its .git included (aider's repository map reads
    git's files), without the bug's .venv (the tests name its interpreter by its real path)."""
    copy = Path(shutil.copytree(repo, folder / repo.name, symlinks=True,
                                ignore=shutil.ignore_patterns(".venv", "__pycache__", ".pytest_cache", ".coverage")))
    for key, value in (("user.name", "aider-peer"), ("user.email", "aider-peer@localhost"), ("commit.gpgsign", "false")):
        subprocess.run([*GIT, "-C", str(copy), "config", key, value], check=True)
    return copy


def changed_files(copy, base):
    """{path: exists} of what aider changed: its tree (commits included) against the bug commit."""
    def listed(*args):
        out = subprocess.run([*GIT, "-C", str(copy), *args], capture_output=True, text=True, check=True).stdout
        return [p for p in out.split("\0") if p]
    paths = set(listed("diff", "--name-only", "-z", base)) | set(listed("ls-files", "-z", "--others", "--exclude-standard"))
    return {p: (copy / p).is_file() for p in sorted(paths) if not p.startswith(AIDER_OWN)}


def test_code(tree, name):
    """The bug's test code, fix.py's answer (workspace/user_tests.py) without a collection run:
    files named like tests and the support code they import."""
    files = list_files(tree)
    return set(find_test_code(tree, files, (), Path(tree).name, plugin_modules(tree, shlex.split(LIBRARIES[name].tests))))


def judge(name, repo, copy, base, folder, timeout):
    """Aider's non-test changes on a fresh copy of the bug, tested fix.py's way."""
    command = bug_tests(name, repo, timeout)
    changed = changed_files(copy, base)
    tests = test_code(copy, name)
    protected = sorted(p for p in changed if p in tests or is_test_or_config(p))
    subprocess.run([*GIT, "-C", str(copy), "add", "-A", "--", "."], capture_output=True)  # new files into the diff
    diff = subprocess.run([*GIT, "-C", str(copy), "diff", "--cached", base, "--", ".", ":(exclude).aider*"],
                          capture_output=True, text=True).stdout
    tree = fresh_tree(repo, command, folder / "verdict")
    for path, exists in changed.items():
        if path in protected:
            continue
        if exists:
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(copy / path, tree / path)
        elif (tree / path).exists():
            (tree / path).unlink()
    final = project_tests(tree, command)
    repaired = final["exit_code"] == 0 and not protected
    return {"verdict": "repaired" if repaired else "not repaired", "changed_files": list(changed),
            "tests_modified": protected,
            "final_tests": {key: final.get(key) for key in ("passed", "failed", "errors", "exit_code", "timed_out")},
            "sandbox": final.get("sandbox"), "diff": diff}


def aider_argv(args, name, copy, folder, keep, message_file):
    """Aider's argv for one bug: LOCAL_FLAGS (aider_setup.py), git and the repository map on."""
    settings, metadata = aider_files(folder, args, args.seed, args.edit_format)
    test_cmd = shlex.join([sys.executable, str(Path(__file__).resolve()), "--run-tests", name, str(copy),
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
    log = _text(keep / "aider.log")
    return {"name": name, "edit_format": args.edit_format, "file": LIBRARIES[name].path, **judged,
            "seconds": seconds, "aider_exit_code": exit_code, "timed_out": timed_out,
            "start_tests": {key: start.get(key) for key in ("passed", "failed", "errors", "exit_code")},
            "repo_map": _repo_map(log, _text(keep / "aider.llm.history")), **_usage(keep),
            "model_errors": sum("litellm." in line and "Error" in line for line in log.splitlines()),
            **_limits(log),
            "outside_requests": tripwire.seen[seen:], "aider_argv": argv}


def _text(path):
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _limits(log):
    """Aider's own estimate of its first chat context when past the model's (its warning, before
    it sends anyway), and how often it hit a token limit (an answer cut, or a request refused)."""
    estimate = next((line for line in log.splitlines() if line.startswith("Your estimated chat context of ")), "")
    tokens = estimate.split(" of ", 1)[1].split(" tokens", 1)[0].replace(",", "") if estimate else ""
    lines = log.splitlines()
    error = next((i for i, line in enumerate(lines) if line.startswith("litellm.")), None)
    return {"context_estimate_over_limit": int(tokens) if tokens.isdigit() else None,
            "token_limit_hits": log.count("has hit a token limit!"),
            "first_model_error": " ".join(lines[error:error + 2]).strip()[:300] if error is not None else None}


def _repo_map(log, requests):
    """What aider's log says of its repository map, and whether a request it sent held one."""
    said = next((line.strip() for line in log.splitlines() if line.startswith("Repo-map:")), None)
    return {"announced": said, "sent": MAP_PREFIX in requests,
            "sizes": [line.strip() for line in log.splitlines() if line.startswith("Repo-map: ") and "k-tokens" in line]}


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
