"""The patch a run made, the guardrails before it is offered, and applying it once approved.

- `make_patch(task, workspace)`: the changed editable files as a unified diff that `git apply`
  and `patch -p1` accept (a/ and b/ prefixes, "\\ No newline at end of file" where needed),
  with the lines it adds and removes per file.
- `refusal(patch, judged, task, max_lines)`: why a patch is never applied, in one line, or None.
- `moved_on(repo, paths, start)`: the files the user changed since the run started.
- `apply(repo, workspace, paths)`: each changed file replaced atomically, keeping its mode.
  (Atomic per file: should a later file fail, the ones before it stay applied, and are named.)

What this file deliberately is not: the question to the user (fix.py asks it) or a patch tool:
the patch text is for people and `git apply`; `apply` copies the judged bytes themselves.
"""
import difflib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from workspace.files import fingerprint, write_atomic


@dataclass(frozen=True)
class Patch:
    text: str      # the unified diff
    changes: dict  # path -> (lines added, lines removed), in the order of the diff

    @property
    def paths(self):
        return list(self.changes)

    @property
    def changed_lines(self):
        return sum(added + removed for added, removed in self.changes.values())


def make_patch(task, workspace):
    """The patch from the task's pristine tree to `workspace`, over its editable files."""
    text, changes = [], {}
    for path in task.editable:
        before, after = _bytes(task.repo / path), _bytes(Path(workspace) / path)
        if before == after:
            continue
        before, after = _lines(before), _lines(after)
        body = list(difflib.unified_diff(before, after, f"a/{path}", f"b/{path}"))
        hunks = body[2:]  # after the ---/+++ headers, which a changed line could look like
        changes[path] = (sum(line.startswith("+") for line in hunks), sum(line.startswith("-") for line in hunks))
        for line in body:
            text.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return Patch("".join(text), changes)


def _bytes(path):
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _lines(data):
    """The lines as git counts them: ended by "\\n" alone, each keeping its ending ("\\r\\n" too),
    so the diff holds exactly the bytes that will be written (str.splitlines would also split
    at a form feed or a lone "\\r", and a patch made so would not apply)."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def stat_lines(patch):
    """`git diff --stat` in short: one line per file, then the totals."""
    width = max((len(p) for p in patch.paths), default=0)
    lines = [f" {p:<{width}} | {a + r:>3} {'+' * min(a, 40)}{'-' * min(r, 40)}" for p, (a, r) in patch.changes.items()]
    added = sum(a for a, _ in patch.changes.values())
    removed = sum(r for _, r in patch.changes.values())
    files = len(patch.changes)
    return [*lines, f" {files} file{'s' * (files != 1)} changed, {added} insertion{'s' * (added != 1)}(+), "
                    f"{removed} deletion{'s' * (removed != 1)}(-)"]


def refusal(patch, judged, task, max_lines):
    """Why this patch must never be applied (one line), or None when it may be offered."""
    if not patch.changes:
        return "the run changed no file: there is nothing to apply"
    tests = [p for p in patch.paths if task.is_test_file(p)]
    if tests:
        return f"the patch changes test files ({', '.join(tests)}): never applied"
    outside = sorted(set(judged["changed_files"]) - set(patch.paths))
    if outside:
        return f"the run changed files outside the patch ({', '.join(outside[:5])}): never applied"
    if judged["verdict"] != "repaired":
        return f"the verdict is {judged['verdict']!r}, not 'repaired': never applied"
    if patch.changed_lines > max_lines:
        return (f"the patch changes {patch.changed_lines} lines, more than --max-changed-lines {max_lines}: "
                "never applied")
    return None


def moved_on(repo, paths, start):
    """The paths whose file in `repo` no longer has the bytes it had in `start` (the starting
    tree), or is no longer a plain file inside `repo` (a link now stands in its path)."""
    real = os.path.realpath(repo)
    return [p for p in paths if fingerprint(Path(repo) / p) != fingerprint(Path(start) / p)
            or os.path.realpath(Path(repo) / p) != os.path.join(real, p)]


def apply(repo, workspace, paths):
    """Replace each file in `repo` by the workspace's bytes, atomically, keeping its mode; return
    (the paths written, why the next one could not be, or None). The bytes are the ones the
    verdict judged, not a re-application of the patch's text."""
    unwritable = [p for p in paths if not os.access((Path(repo) / p).parent, os.W_OK)]
    if unwritable:  # found before any file is written
        return [], f"cannot write in the folder of {', '.join(unwritable)}"
    written = []
    for path in paths:
        target = Path(repo) / path
        try:
            mode = stat.S_IMODE(os.lstat(target).st_mode)
            # The tools write UTF-8 (lone surrogates as surrogatepass), so this round trip is exact.
            text = (Path(workspace) / path).read_bytes().decode("utf-8", "surrogatepass")
            write_atomic(target, text, mode=mode)
        except (OSError, UnicodeDecodeError) as error:
            return written, f"cannot write {path}: {getattr(error, 'strerror', None) or error}"
        written.append(path)
    return written, None
