"""What counts as test code in a user's repository: one answer, from what the tests really use.

fix.py never lets a model change what the tests expect, so it must know which files are tests
before anything is editable. Names alone are not enough: a module outside `tests/` that the
tests take their expected values from (`testing/expected.py`) is as much a test as they are.
`find_test_code(tree, files, collected, project, plugins)` answers, for the copy at `tree`:

1. the files pytest collected (`collected`), every `conftest.py`, and files named like tests
   (`test_*.py`, `*_test.py`, anything under a `tests/` or `test/` folder);
2. test-support code: the repository's modules that test code imports (directly or through
   each other: workspace/python_imports.py; a fixture module a conftest.py names in
   `pytest_plugins`, or one `-p NAME` loads, counts as imported) and the product code does not, unless they belong
   to the project's own packages. Those are named by its packaging (pyproject.toml, setup.cfg,
   setup.py) or, failing that, by the repository's folder; inside them, only a module named for
   testing (`_testing.py`, `testing/`) is support. A package imported only by its tests, as
   most are, stays product code.

`is_test(path, tests=())` asks the question of one path, for every part of the harness
(`Task.is_test_file`: the verdict's "tests unchanged", the grades, the patch's guardrail): in
`tests`, or named like a test (rule 1). A shipped task lists its files by hand and has no
`tests`, so for it the name decides. `is_test_or_config(path)` adds the files pytest or Python
read as configuration (`pytest.ini`, `pyproject.toml`, `setup.py`, ...): what
task_catalog.load_task never lets a task make editable. `is_tooling(path)` names packaging and
tool configuration (`setup.py`, `docs/conf.py`, `noxfile.py`): not tests, but never editable by
default either (fixing/task.py's choose_files). `kind_of(path, tests)` puts a file in one of four
places by these answers: test, tooling, code (Python) or other (fixing/sorted_files.py).

What this file deliberately is not: a runner. Nothing here imports or executes the user's code.
"""
import re
from pathlib import PurePosixPath

from workspace.project_names import own_packages
from workspace.python_imports import Imports

TEST_NAME = re.compile(r"(^|/)(tests?/|test_[^/]*\.py$|[^/]*_test\.py$|conftest\.py$)")
# A module or folder named for testing, inside the project's own packages (pandas/_testing).
TESTING_PART = re.compile(r"^_*(tests?|testing|test_?utils?|test_?helpers?|test_?support|testutils|fixtures)$")
# Files that pytest (or Python itself) reads as configuration: never editable, whatever a task says.
TEST_CONFIG = {"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "setup.py", "pyproject.toml",
               "sitecustomize.py", "usercustomize.py"}
TOOLING = {"setup.py", "noxfile.py", "fabfile.py", "dodo.py", "pavement.py", "hatch_build.py", "versioneer.py",
           "sitecustomize.py", "usercustomize.py"}


def is_test(path, tests=()):
    """A test file: in `tests` (find_test_code's answer), a conftest.py, or one named like a test:
    test_*.py, *_test.py, or anything under a tests/ or test/ folder."""
    return path in tests or TEST_NAME.search(path) is not None


def is_tooling(path):
    """Packaging or tool configuration: setup.py, noxfile.py, ..., a Sphinx conf.py under docs/."""
    parts = PurePosixPath(path).parts
    return parts[-1] in TOOLING or (parts[-1] == "conf.py" and any(p in ("doc", "docs") for p in parts[:-1]))


def is_test_or_config(path):
    """A test (named like one) or a file pytest or Python reads as configuration."""
    return is_test(path) or PurePosixPath(path).name in TEST_CONFIG


def kind_of(path, tests=()):
    """Which of four a file is: "test" (is_test: a test named like tooling, tests/setup.py, is
    still a test), "tooling" (is_tooling), else "code" for a Python file and "other" for the rest."""
    if is_test(path, tests):
        return "test"
    if is_tooling(path):
        return "tooling"
    return "code" if path.endswith(".py") else "other"


def find_test_code(tree, files, collected, project="", plugins=()):
    """The paths of `files` (relative, under `tree`) that are test code: what pytest collected
    (`collected`), files named like tests, and the test-support code they import. `project` is
    the repository's folder name, its own package when its packaging names none; `plugins`, the
    modules pytest loads with `-p NAME`, count as imported by the tests."""
    python, collected = [p for p in files if p.endswith(".py")], set(collected)
    tests = {p for p in python if p in collected or TEST_NAME.search(p)}
    imports = Imports(tree, files)
    owned = own_packages(tree, files, project)
    loaded = {path for name in plugins for path in imports.module(name)}
    support = {p for p in _closure(tests | loaded, imports) - tests if _support_by_place(p, owned)}
    product = {p for p in python if p not in tests and p not in support and not is_tooling(p)}
    return tests | (support - _closure(product, imports))  # what the product imports, however far, is product


def _closure(start, imports):
    """Every file reached from `start` through imports, `start` included."""
    seen, todo = set(start), list(start)
    while todo:
        for found in imports.of(todo.pop()):
            if found not in seen:
                seen.add(found)
                todo.append(found)
    return seen


def _support_by_place(path, owned):
    """Whether a module the tests import is test support by where it is: outside the project's
    own packages (`owned`, top-level names; None when unknown), or named for testing."""
    parts = PurePosixPath(path[4:] if path.startswith("src/") else path).parts
    named = any(TESTING_PART.match(PurePosixPath(part).stem) for part in parts)
    if owned is None:
        return named
    return parts[0].removesuffix(".py") not in owned or named
