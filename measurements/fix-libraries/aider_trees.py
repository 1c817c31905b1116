"""The bug's trees for aider_bugs.py: fix.py's starting tree, aider's copy (with its .git), what
aider changed there, and the verdict on a fresh copy of the bug.

- `bug_tests(name, repo, timeout)`: fix.py's test command for a bug (its interpreter, its `--tests`).
- `fresh_tree(repo, command, folder)`: fix.py's starting tree, the files git lists.
- `aider_copy(repo, folder)`: a throwaway copy with its .git, so aider's repository map is on.
- `changed_files(copy, base)`: what aider changed (commits, deletions, new files; its caches aside).
- `judge(name, repo, copy, base, folder, timeout)`: aider's changes that are not test code (named
  like tests, the support code they import, pytest's and Python's configuration) go onto a fresh
  copy of the bug, and its tests run there, fix.py's way: "repaired" iff pytest exits 0 and
  aider changed no test file.

What this file deliberately is not: part of coding-loop (aider_bugs.py imports it; nothing else
does, and pytest never collects measurements/).
"""
import shlex
import shutil
import subprocess
from pathlib import Path

from fixing.project_pytest import default_python, plugin_modules, project_command, project_tests
from fixing.repo import list_files, starting_tree
from prepare import LIBRARIES
from workspace.user_tests import find_test_code, is_test_or_config

# Aider's own files in the copy (its repository map's tag cache): never part of a repair.
AIDER_OWN = (".aider",)
GIT = ["git", "-c", "core.quotepath=off"]


def bug_tests(name, repo, timeout):
    """fix.py's PytestCommand for the bug at `repo` (its real path): its interpreter, its `--tests`."""
    return project_command(repo, default_python(repo), shlex.split(LIBRARIES[name].tests), timeout)


def fresh_tree(repo, command, folder):
    """fix.py's starting tree: the files git lists (no .git, no .venv) copied into `folder`."""
    starting_tree(repo, list_files(repo, skip=command.places), folder)
    return folder


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

