"""The test suite's memory of sandboxed pytest runs: a run of the same bytes is run once.

The suite starts the same few trees hundreds of times (a task's pristine copy, its solution, the
sample, fix.py's small project): about 110 different runs are left to run. A run is a function
of what it is given: the tree's bytes (names, modes, contents, link targets), the command line,
the environment, the timeout and the limits. `PytestMemo.run_bounded` stands in for
workspace/pytest_run.run_bounded: it runs the first of each kind for real and answers the same
kind again from that run, with this run's own paths (the tree, and where the sandbox ran it)
put back where the output named them.

What this file deliberately is not: a cache the product uses (only conftest.py installs it, in
each test worker and in evaluate.py's worker processes, for one test session, in a folder the
session owns), or a stand-in for pytest (every answer is a real run of this session, of the
same bytes). A run that timed out is never kept (its result depends on the moment), a tree it
cannot read is always run, and a test about what a run does (`@pytest.mark.real_pytest_runs`:
the sandbox, the limits, the timeout) gets every run real.
"""
import hashlib
import json
import os
import resource
import stat
from pathlib import Path

from workspace.files import write_atomic

TREE = "<tree>"  # the tree's path, in a kept run: each answer puts its own tree's path back
RUN_AT = "<run-at>"  # where the sandbox runs it, when that is another path (fix.py: the user's own)


def tree_digest(root):
    """sha256 of every entry under `root` (relative name, mode, bytes or link target), or None
    when one cannot be read (a test made it unreadable: that run is always run for real).
    Not workspace/files.py:snapshot, which recordings keep: it leaves out modes, link targets
    and empty folders, and any of them can change what a test run does."""
    digest = hashlib.sha256()
    try:
        for folder, names, files in os.walk(root):
            names.sort()
            for name in sorted(names + files):
                path = os.path.join(folder, name)
                info = os.lstat(path)
                digest.update(f"\0{os.path.relpath(path, root)}\0{info.st_mode:o}\0".encode())
                if stat.S_ISLNK(info.st_mode):
                    digest.update(os.readlink(path).encode())
                elif stat.S_ISREG(info.st_mode):
                    digest.update(Path(path).read_bytes())
    except OSError:
        return None
    return digest.hexdigest()


class PytestMemo:
    """Runs kept as files in `folder`, shared by every worker of one session."""

    def __init__(self, folder, real_run_bounded):
        self.folder, self.real = Path(folder), real_run_bounded
        self.folder.mkdir(parents=True, exist_ok=True)
        self.answered = self.ran = 0

    def run_bounded(self, command, cwd, env, timeout, limits):
        places = _places(command, cwd)
        key = self.key(command, cwd, env, timeout, limits, places=places)
        kept = self._kept(key)
        if kept is not None:
            self.answered += 1
            return kept["exit_code"], _placed_back(kept["output"], places), kept["dropped"], False
        self.ran += 1
        exit_code, output, dropped, timed_out = self.real(command, cwd, env, timeout, limits)
        if key is not None and not timed_out:
            self._keep(key, {"exit_code": exit_code, "output": _marked(output, places), "dropped": dropped})
        return exit_code, output, dropped, timed_out

    def key(self, command, cwd, env, timeout, limits, *, places):
        """What the run is a function of, as one digest; None when the tree cannot be read.
        `places`: the paths that change from copy to copy (`_places`)."""
        tree = tree_digest(cwd)
        if tree is None:
            return None
        # The sandbox's command line also names each folder above those, as an argument of its
        # own (sandbox.py makes each one inside its empty /tmp): an evaluation's copies sit in a
        # new scratch folder each time, so each of those is named by how far up it is.
        above = {str(folder): marker + "/.." * up for path, marker in places.items()
                 for up, folder in enumerate(Path(path).parents, 1) if folder != Path(folder.anchor)}
        def placed(text):
            return above[text] if text in above and text not in places else _marked(text, places)
        # The process allowance is counted from the processes running at the moment (sandbox.py),
        # so it differs from run to run of the same tree: it is left out.
        fixed = [(kind, value) for kind, value in limits if kind != resource.RLIMIT_NPROC]
        given = [[placed(part) for part in map(str, command)],
                 sorted((name, placed(str(value))) for name, value in env.items()),
                 timeout, fixed, tree]
        return hashlib.sha256(json.dumps(given).encode()).hexdigest()

    def _kept(self, key):
        if key is None:
            return None
        try:
            return json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def _keep(self, key, run):
        write_atomic(self.folder / f"{key}.json", json.dumps(run))  # a worker reading at that moment sees all or none


def _places(command, cwd):
    """{path: marker} for the paths a run names that differ from one copy to the next: the tree,
    and where the sandbox runs it when that is elsewhere (`--chdir`: fix.py runs a project's
    tests at the user's own path, their files hidden, so a test's output names that path)."""
    command = [str(part) for part in command]
    places = {str(cwd): TREE}
    if "--chdir" in command[:-1]:
        places.setdefault(command[command.index("--chdir") + 1], RUN_AT)
    return places


def _marked(text, places):
    """`text` with each place's path as its marker, the longest first (one may hold another)."""
    for path in sorted(places, key=len, reverse=True):
        text = text.replace(path, places[path])
    return text


def _placed_back(text, places):
    """A kept run's output with this run's own paths where the markers stand."""
    for path, marker in places.items():
        text = text.replace(marker, path)
    return text


def install(folder, patch=None):
    """Answer this process's sandboxed pytest runs from the memo in `folder`. conftest.py calls it
    in each test worker (with its MonkeyPatch, so the session's end undoes it), and hands it to
    evaluate's worker processes (evaluation/workers.py: WORKER_SETUP), which are spawned clean,
    would otherwise run every attempt's tests for real, and simply end."""
    from workspace import pytest_run
    memo = PytestMemo(folder, pytest_run.run_bounded)
    (patch.setattr if patch else setattr)(pytest_run, "run_bounded", memo.run_bounded)
    return memo
