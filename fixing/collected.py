"""Which files of a user's project pytest collects as tests, its doctests aside.

`collected(tree, command, failing_files)` asks pytest itself (`--collect-only`, one line per
file) which files hold tests, plus the failing tests' own files. A project whose configuration
says `--doctest-modules` (parse's does) makes pytest collect its product modules too, for the
examples in their docstrings: those are still the code to repair, and counting them as test
files left fix.py with nothing to edit. So the collected files not named like tests are asked
about once more, item by item: a file whose every item is a doctest is not a test file.

A doctest's item is named after the object it documents, dotted (`parse/__init__.py::parse.compile`),
or after the module itself for its own docstring (`parse/__init__.py::parse`); a test function's
or class's name is an identifier (`::test_x`, `::TestX::test_y`, `::test_p[1.5]`), never dotted.

What this file deliberately is not: the answer to what is test code (workspace/user_tests.py
adds what the tests import and load as plugins) or a process runner (pytest_run.py).
"""
import re
from pathlib import PurePosixPath

from fixing.project_pytest import COLLECT, project_tests
from workspace.pytest_collection import collected_files
from workspace.pytest_output import CUT
from workspace.test_selection import narrowed
from workspace.user_tests import is_test

ITEMS = ("--collect-only", "--verbosity=-1")  # one line per item: "path::name"


def collected(tree, command, failing_files=()):
    """The files pytest collects as tests (and the failing tests' own), less doctest-only modules."""
    files = {*collected_files(project_tests(tree, command, COLLECT)["output"]), *failing_files}
    return files - doctest_only(tree, command, sorted(p for p in files - set(failing_files)
                                                      if p.endswith(".py") and not is_test(p, ())))


def doctest_only(tree, command, paths):
    """Those of `paths` whose every collected item is a doctest. One bounded, sandboxed collection
    of just those files; any doubt (a command this cannot narrow, an output cut short, an item
    that is not a doctest) keeps a file a test file, as before."""
    probe = narrowed(command, paths) if paths else None
    if probe is None:
        return set()
    output = project_tests(tree, probe, ITEMS)["output"]
    if any(CUT.search(line) for line in output.splitlines()):  # only the head and tail were kept
        return set()
    items = {}
    for path, name in re.findall(r"^(\S+\.py)::(\S.*)$", output, re.M):
        items.setdefault(path, []).append(name)
    return {path for path in paths if items.get(path) and all(is_doctest(path, name) for name in items[path])}


def is_doctest(path, name):
    """Is `name` (an item of `path`) a doctest's? Dotted before any parameters, or the module's own."""
    bare = name.split("[", 1)[0]
    module = PurePosixPath(path)
    own = module.parent.name if module.name == "__init__.py" else module.stem
    return "." in bare or bare == own
