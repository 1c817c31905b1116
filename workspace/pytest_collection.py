"""What pytest says before any test runs: what `--collect-only` found, and why a run could not
start (a module the interpreter cannot import, no pytest at all). `pytest_missing(result)` and
`missing_modules(result, files)` ask it of a whole run: fix.py's first run, whose missing
dependency is an environment to set up, not a bug for a model to repair.

Apart from pytest_output.py, which reads what the tests did (counts, failures, frames): these
answers decide whether there is a run to read at all, and which files hold the tests.

What this file deliberately is not: a runner (pytest_run.py) or the judge of what a start run
means (fixing/first_steps.py, workspace/passing.py).
"""
import re
from pathlib import PurePosixPath

FILE_COUNT = re.compile(r"^(\S+\.py): (\d+)$", re.M)  # at -qq, one line per test file: "tests/test_a.py: 4"


def collection(output):
    """What `--collect-only` found: {"tests", "errors", "deselected"}, from its count line
    ("5/6 tests collected (1 deselected), 1 error" at -q) or, at -qq, its lines per file
    ("tests/test_a.py: 4") and collection errors; None when the output says neither."""
    text = output or ""
    line = re.search(r"^(?:(\d+)(?:/\d+)?|no) tests? collected(?: \((\d+) deselected\))?(?:, (\d+) errors?)?",
                     text, re.M)
    if line:
        return {"tests": int(line.group(1) or 0), "errors": int(line.group(3) or 0),
                "deselected": int(line.group(2) or 0)}
    files = [count for _, count in FILE_COUNT.findall(text)]
    errors = len(re.findall(r"^ERROR \S+", text, re.M))
    if not files and not errors:
        return None
    return {"tests": sum(map(int, files)), "errors": errors, "deselected": 0}


def collected_files(output):
    """The test files `--collect-only -qq` named ("tests/test_a.py: 4"), as far as the output was kept."""
    return [path for path, _ in FILE_COUNT.findall(output or "")]


def modules_not_found(output):
    """The modules the run could not import ("ModuleNotFoundError: No module named 'yaml'"), each once."""
    return list(dict.fromkeys(re.findall(r"ModuleNotFoundError: No module named '([\w.]+)'", output or "")))


def no_pytest(output):
    """Python's own answer when the interpreter has no pytest ("python: No module named pytest")."""
    return re.search(r"No module named '?pytest'?(\s|$)", output or "") is not None


def pytest_missing(result):
    """True when the interpreter has no pytest: nothing ran, and Python said why."""
    return (result["exit_code"] != 0 and not (result["passed"] or result["failed"] or result["errors"])
            and no_pytest(result["output"]))


def missing_modules(result, files):
    """The modules the tests could not import that the repository does not hold (`files`):
    its dependencies, missing from the interpreter. Only for a run that did not pass."""
    own = {part.removesuffix(".py") for path in files for part in PurePosixPath(path).parts}
    return [] if result["exit_code"] == 0 else [
        module for module in modules_not_found(result["output"]) if module.split(".")[0] not in own]
