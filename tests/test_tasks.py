"""Every task under tasks/ is well formed, starts broken, and is repaired by its solution.

A task folder holds `task.json` (what the model is told and may touch), `repo/` (the faulty
repository; the sample task points at `sample_repo/` through `"repo"` instead) and
`solution.json` (exact-once replacements that repair it, never shown to a model).
Each task's own tests run twice, on temporary copies and never in place: once as shipped
and once with the solution applied; both runs of a task start at once, each a fork of one warm
interpreter (tests/forked_pytest.py). Those two are the only pytest runs a task costs the
suite: what the model is shown of the failing run (the failure digest of
loop/failure_digest.py) is checked on the shipped run's own output.
"""
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from loop.failure_digest import LINE_CHARS, failure_digest
from tests.forked_pytest import ForkedPytest
from workspace.pytest_run import PYTEST_ARGS
from workspace.user_tests import is_test

TASKS = Path(__file__).resolve().parent.parent / "tasks"
NAMES = sorted(p.name for p in TASKS.iterdir() if p.is_dir() and p.name != "__pycache__")
KEYS = {"title", "ticket", "readable", "editable"}
MAX_FILE_BYTES = 100_000
# Each run is `python -B -m pytest` with the very arguments run_tests uses (only tests/, no
# config or conftest.py from parent folders, no cache), taken from workspace.pytest_run so the
# two cannot drift apart; forked from one warm interpreter (tests/forked_pytest.py).
ENV = {"PATH": os.environ.get("PATH", os.defpath), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
       "PYTHONDONTWRITEBYTECODE": "1"}
RUN_TIMEOUT = 120


def load_task(name):
    return json.loads((TASKS / name / "task.json").read_text(encoding="utf-8"))


def load_solution(name):
    return json.loads((TASKS / name / "solution.json").read_text(encoding="utf-8"))


def repo_of(name):
    """The task's repository: `repo/` beside task.json, or the folder its "repo" names."""
    return (TASKS / name / load_task(name).get("repo", "repo")).resolve()


def apply_edits(root, edits):
    """Apply each edit to the copy at `root`; every `old` must occur exactly once."""
    for edit in edits:
        target = root / edit["path"]
        text = target.read_text(encoding="utf-8")
        count = text.count(edit["old"])
        if count != 1:
            raise AssertionError(f"{edit['path']}: old text occurs {count} times, not once")
        target.write_text(text.replace(edit["old"], edit["new"]), encoding="utf-8")


def summary(output):
    """Counts from pytest's closing line, e.g. "1 failed, 3 passed in 0.05s"."""
    for line in reversed(output.splitlines()):
        match = re.fullmatch(r"=*\s*(\d+ \w+(?:, \d+ \w+)*)(?: in [\d.]+s.*?)?\s*=*", line.strip())
        if match:
            counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", match.group(1))}
            errors = counts.pop("errors", 0) + counts.pop("error", 0)
            for word in ("warning", "warnings"):
                counts.pop(word, None)  # warnings are no verdict
            passed, failed = counts.pop("passed", 0), counts.pop("failed", 0)
            # "other": skipped, xfailed, xpassed, deselected: none belongs in a task
            return {"passed": passed, "failed": failed, "errors": errors, "other": sum(counts.values())}
    return None


def assert_the_digest_names_each_failure(output):
    """The failure digest of a task's failing run names each failing test with its E lines,
    ends with pytest's count line, and leaves pytest's noise out: what the model reads."""
    digest = failure_digest(output)
    failing = [line.split()[1] for line in output.splitlines() if line.startswith("FAILED ")]
    assert failing and all(f"\nFAILED {nodeid}\n" in f"\n{digest}\n" for nodeid in failing), digest
    e_lines = [line for line in digest.splitlines() if line.startswith("E ")]
    assert e_lines and all(line[:LINE_CHARS] in output for line in e_lines), digest
    assert digest.splitlines()[-1] == output.rstrip().splitlines()[-1]  # "2 failed, 5 passed in 0.03s"
    noise = r"^[.FE]+ *(\[ *\d+%\])?$|^=|^_|^    def "  # progress dots, banners, headers, source context
    assert not re.search(noise, digest, re.M), digest
    frames = r"^\S+:\d+:"  # "tests/test_x.py:12: AssertionError", "x.py:3: in f"
    assert all(len(re.findall(frames, block, re.M)) <= 3 for block in digest.split("\n\n")), digest
    assert len(digest) < len(output)


def pristine_and_solved(name, base, pytest_runs):
    """{"pristine": result, "solved": result} for one task, both runs at once. A result is
    {"exit_code", "output", "counts"}, or {"problem": text} when the copy could not be
    prepared (a missing repository, a solution that does not apply)."""
    copies, results = {}, {}
    for kind in ("pristine", "solved"):
        copy = base / kind
        try:
            shutil.copytree(repo_of(name), copy, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
            if kind == "solved":
                apply_edits(copy, load_solution(name)["edits"])
        except Exception as exc:  # reported by the assertions below
            results[kind] = {"problem": f"{type(exc).__name__}: {exc}"}
            continue
        copies[kind] = copy
    ran = pytest_runs.run(PYTEST_ARGS, list(copies.values()), RUN_TIMEOUT)
    for kind, (exit_code, output) in zip(copies, ran):
        if exit_code < 0:
            output += f"\n(ended by signal {-exit_code}: over {RUN_TIMEOUT}s)"
        results[kind] = {"exit_code": exit_code, "output": output, "counts": summary(output)}
    return results


@pytest.fixture(scope="module")
def pytest_runs():
    """One warm interpreter per test worker that forks each run (tests/forked_pytest.py)."""
    runs = ForkedPytest(ENV)
    yield runs
    runs.close()


def test_there_are_tasks_with_snake_case_names():
    assert "path_rules" in NAMES
    assert len(NAMES) >= 6
    for name in NAMES:
        assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", name), name


def test_the_sample_task_points_at_the_sample():
    task = load_task("path_rules")
    assert repo_of("path_rules") == (TASKS.parent / "sample_repo").resolve()
    assert task["ticket"] == ("The test suite in tests/test_path_rules.py has a failing test. "
                              "Find out why and fix path_rules.py so that every test passes.")


@pytest.mark.parametrize("name", NAMES)
def test_task_json_has_the_contract_keys(name):
    task = load_task(name)
    assert set(task) in (KEYS, KEYS | {"repo"})
    assert isinstance(task["title"], str) and task["title"].strip()
    assert "\n" not in task["title"] and len(task["title"]) <= 80
    assert isinstance(task["ticket"], str) and task["ticket"].strip()
    for key in ("readable", "editable"):
        assert isinstance(task[key], list) and task[key], key
        assert all(isinstance(path, str) for path in task[key]), key
        assert len(set(task[key])) == len(task[key]), f"{key} repeats a path"
    if "repo" in task:
        assert not (TASKS / name / "repo").exists(), "a task has either repo/ or a 'repo' field"


@pytest.mark.parametrize("name", NAMES)
def test_listed_files_exist_and_only_sources_are_editable(name):
    task = load_task(name)
    root = repo_of(name)
    assert root.is_dir()
    for path in task["readable"]:
        assert not path.startswith("/") and "\\" not in path and ".." not in path.split("/"), path
        target = root / path
        assert target.is_file() and not target.is_symlink(), path
        assert target.resolve().is_relative_to(root), path
        assert target.stat().st_size < MAX_FILE_BYTES, path
    assert set(task["editable"]) <= set(task["readable"])
    assert not [path for path in task["editable"] if is_test(path)]
    assert [path for path in task["readable"] if is_test(path)], "no test file to read"
    # Every Python file of the repository is readable: nothing the tests use is hidden.
    sources = {p.relative_to(root).as_posix() for p in root.rglob("*.py") if "__pycache__" not in p.parts}
    assert sources <= set(task["readable"])


@pytest.mark.parametrize("name", NAMES)
def test_repo_has_no_pytest_configuration(name):
    root = repo_of(name)
    for config in ("pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "conftest.py",
                   "tests/conftest.py", "tests/__init__.py"):
        assert not (root / config).exists(), config


@pytest.mark.parametrize("name", NAMES)
def test_solution_edits_only_editable_files_once_each(name):
    edits = load_solution(name)["edits"]
    assert isinstance(edits, list) and edits
    editable = load_task(name)["editable"]
    texts = {}
    for edit in edits:
        assert set(edit) == {"path", "old", "new"}
        assert edit["path"] in editable
        assert edit["old"] and edit["old"] != edit["new"]
        text = texts.setdefault(edit["path"], (repo_of(name) / edit["path"]).read_text(encoding="utf-8"))
        assert text.count(edit["old"]) == 1, f"{edit['path']}: {edit['old']!r}"
        texts[edit["path"]] = text.replace(edit["old"], edit["new"])


@pytest.mark.parametrize("name", NAMES)
def test_ticket_states_the_symptom_not_the_fix(name):
    ticket = load_task(name)["ticket"]
    for edit in load_solution(name)["edits"]:
        old_lines = {line.strip() for line in edit["old"].splitlines()}
        for line in edit["new"].splitlines():
            line = line.strip()
            if line and line not in old_lines:
                assert line not in ticket, f"the ticket gives away the fix: {line!r}"
    assert not re.search(r"\bline \d+", ticket, re.I), "the ticket points at a line"


@pytest.mark.parametrize("name", NAMES)
def test_shipped_repo_fails_its_digest_names_each_failure_and_its_solution_passes(name, tmp_path, pytest_runs):
    runs = pristine_and_solved(name, tmp_path, pytest_runs)
    run = runs["pristine"]
    assert "problem" not in run, run.get("problem")
    counts = run["counts"]
    assert counts, run["output"]
    assert counts["failed"] >= 1 and counts["passed"] >= 1, run["output"]
    assert counts["errors"] == 0 and counts["other"] == 0, run["output"]
    assert run["exit_code"] == 1, run["output"]
    assert_the_digest_names_each_failure(run["output"])
    run = runs["solved"]
    assert "problem" not in run, run.get("problem")
    solved = run["counts"]
    assert solved and run["exit_code"] == 0, run["output"]
    assert solved["failed"] == 0 and solved["errors"] == 0 and solved["other"] == 0, run["output"]
    assert solved["passed"] == counts["passed"] + counts["failed"], run["output"]
