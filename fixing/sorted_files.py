"""The starting copy's files, sorted once into one frozen value that fix.py's choice reads.

Which files are tests, which are packaging and tool configuration, which are the code to repair,
how big each one is, and which ones the failing tests blame and call: every step after the first
run (the notes on the terminal, the choice of what the model may read and edit, the task) needs
these answers about the same files. `sort_files(tree, files, command, failing, output, ...)`
asks once, of the copy at `tree`: pytest's collection (collected.py) and the imports for which
files are test code (workspace/user_tests.py), the tracebacks (workspace/pytest_output.py) and
the failing tests' own calls (localizing/failing_uses.py), and each file's size as text
(workspace/file_limits.py). `sorted_files(tree, files, tests, ...)` is its last, plain step, for
a caller that knows the test code already. The answer is a `SortedFiles`; task.py chooses from
it, and asks workspace/ nothing.

What this file deliberately is not: the choice (task.py's choose_files decides, and which files
are shown first is its rule) or the rules of what a test is (workspace/user_tests.py).
"""
import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from fixing.collected import collected as collected_tests
from fixing.project_pytest import plugin_modules
from localizing.failing_uses import used_by
from workspace.file_limits import text_size
from workspace.pytest_output import blamed_files
from workspace.python_imports import Imports
from workspace.user_tests import find_test_code, is_test, kind_of


@dataclass(frozen=True)
class SortedFiles:
    """Every file of the copy, sorted (see the module docstring)."""
    kinds: dict     # path -> "test", "tooling", "code" (a Python file to repair) or "other": every file, in order
    python: tuple   # the Python files, the shallow ones first: the order a model is shown them in
    sizes: dict     # path -> characters, or why it is not text the tools can edit: each file a choice looks at
    blamed: tuple = ()   # the files the failures' tracebacks point at ("calc/ops.py:6: ..."), in order
    used: tuple = ()     # the files whose code the failing tests call, in the order they name it
    failing: tuple = ()  # the failing tests' own files
    support: tuple = ()  # test code pytest did not collect, named like none: what the tests import

    def of(self, kind, paths=None):
        """The paths of `kind` among `paths` (the Python files when None), in their order."""
        return [path for path in (self.python if paths is None else paths) if self.kinds.get(path) == kind]


def sort_files(tree, files, command, failing, output, *, project, tests_args=(), globs=()):
    """The SortedFiles of the copy at `tree` (its `files`), after a start run whose output is
    `output` and whose failing tests are `failing` ((test id, message) each). `project`: the
    repository's folder name; `tests_args`: the user's --tests; `globs`: --readable's and
    --editable's, whose files are sized too."""
    failing_files = [test.split("::")[0] for test, _ in failing]
    plugins = plugin_modules(tree, tests_args)  # `-p NAME` fixture modules: test code too
    # Only the failing tests' own files join the collected ones: a blamed file is code to repair.
    collected = collected_tests(tree, command, failing_files)
    tests = find_test_code(tree, files, collected, project, plugins)
    imports = Imports(tree, files)  # a failed assertion has no frame in the code: what the test calls says more
    used = [path for test, _ in failing for path in used_by(imports, test)]
    support = sorted(p for p in tests if p not in collected and not is_test(p, ()))
    return sorted_files(tree, files, tests, blamed=blamed_files(output, files), used=used, failing=failing_files,
                        globs=globs, support=support)


def sorted_files(tree, files, tests, *, blamed=(), used=(), failing=(), globs=(), support=()):
    """The SortedFiles of `files` under `tree`, given the test code (`tests`, find_test_code's
    answer) and what the failing tests blame, use and are (`blamed`, `used`, `failing`)."""
    python = sorted((p for p in files if p.endswith(".py")), key=lambda p: (p.count("/"), p))
    # Sized: whatever a choice can look at (the globs' files, the failing tests', every Python
    # file), and nothing else: a repository's data files are never read for nothing.
    looked_at = [*matching(files, globs), *failing, *python]
    kinds = {path: kind_of(path, tests) for path in files}
    sizes = {path: text_size(Path(tree) / path) for path in dict.fromkeys(looked_at) if path in kinds}
    return SortedFiles(kinds, tuple(python), sizes, tuple(blamed), tuple(used), tuple(failing), tuple(support))


def matching(files, globs):
    """Files matching any glob: on the whole path, or on the file name for a glob without "/"."""
    return [p for p in files if any(fnmatch.fnmatchcase(p, g) or ("/" not in g and fnmatch.fnmatchcase(
        os.path.basename(p), g)) for g in globs)]
