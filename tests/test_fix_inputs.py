"""fix.py runs a project its own way (its interpreter, its pytest configuration), and bad input
is one line on stderr, with the user's tree left exactly as it was."""
import json
import subprocess

import pytest

import fix
from fixing import repo as user_repo
from fixing import task as user_task
from testing.scripted import done, text
from tests.network import closed_port
from tests.user_repos import ADD_FIX, OPS, OPS_FIXED, PROJECT, fake_venv, make_project, tree_state
from workspace import sandbox


def run_fix(repo, tmp_path, *flags, host=None):
    # The levers, not the default search: these tests script one run of native calls.
    return fix.main(["--repo", str(repo), "--host", host or f"http://127.0.0.1:{closed_port()}",
                     "--output", str(tmp_path / "out" / "run.json"), "--settings", "levers", *flags])


def one_line_error(capsys, *words):
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert all(word in err for word in words), err


INTERPRETER_TEST = "import sys\n\n\ndef test_interpreter():\n    assert sys.executable == {!r}, sys.executable\n"


@pytest.mark.parametrize("where", ["the repository's .venv", "--python"])
def test_the_projects_own_interpreter_runs_the_tests(tmp_path, capsys, where):
    repo = tmp_path / "calc"
    python = fake_venv(repo / ".venv" if where != "--python" else tmp_path / "elsewhere")
    make_project(repo, {**PROJECT, "src/calc/ops.py": OPS_FIXED,
                        "tests/test_python.py": INTERPRETER_TEST.format(str(python))})
    before = tree_state(repo)
    flags = ["--python", str(python)] if where == "--python" else []
    assert run_fix(repo, tmp_path, *flags) == 0  # the interpreter test passes: it ran under `python`
    printed = capsys.readouterr().out
    assert f"(interpreter {python})" in printed and "nothing to fix: the tests pass (3 passed)" in printed
    assert tree_state(repo) == before


CONFIGURED = {  # tests in checks/check_*.py, a conftest fixture they need, and -v asked for
    "pyproject.toml": ('[tool.pytest.ini_options]\ntestpaths = ["checks"]\npython_files = ["check_*.py"]\n'
                       'pythonpath = ["src"]\naddopts = "-v"\n'),
    "conftest.py": "import pytest\n\n\n@pytest.fixture\ndef four():\n    return 4\n",
    "src/calc/__init__.py": "", "src/calc/ops.py": OPS,
    "checks/check_ops.py": "from calc.ops import add, mul\n\n\ndef test_add(four):\n    assert add(2, 2) == four\n\n\n"
                           "def test_mul():\n    assert mul(2, 3) == 6\n",
}


def test_the_projects_own_pytest_configuration_is_used_by_every_run(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "calc", CONFIGURED)
    fake_ollama.play([done(tool_calls=[ADD_FIX])], [text("Fixed add."), done()])
    assert run_fix(repo, tmp_path, "--yes", host=fake_ollama.url) == 0
    printed = capsys.readouterr().out
    assert "starting tests: exit_code 1, 1 passed, 1 failed" in printed
    assert "verdict: repaired (independent pytest: exit_code 0, 2 passed" in printed
    spec = json.loads((tmp_path / "out" / "run.json").read_text())["task_spec"]
    assert spec["editable"] == ["src/calc/ops.py"]  # the checks and conftest.py are the project's tests
    assert {"checks/check_ops.py", "conftest.py"} <= set(spec["readable"]) and "checks/check_ops.py" in spec["tests"]
    assert (repo / "src/calc/ops.py").read_text() == OPS_FIXED


def test_a_missing_folder_is_one_line(tmp_path, capsys):
    assert run_fix(tmp_path / "nowhere", tmp_path) == 1
    one_line_error(capsys, "is not a folder")


MISSING = ["cannot import yaml_not_installed (ModuleNotFoundError)", "a dependency missing from", "--python"]


@pytest.mark.parametrize("files, flags, words", [
    ({"pyproject.toml": "", "calc.py": OPS}, [], ["no tests found", "--tests"]),
    ({**PROJECT, "tests/test_slow.py": "import time\n\n\ndef test_slow():\n    time.sleep(30)\n"},
     ["--test-timeout", "0.5"], ["longer than --test-timeout 0.5 s"]),
    (PROJECT, ["--tests=--no-such-flag"], ["pytest could not run the tests (exit code 4)"]),
    (PROJECT, ["--editable", "nothing*.py"], ["--editable nothing*.py matches no file"]),
    # A dependency missing from the interpreter is no bug to repair: said before any model is asked,
    # whether a test, the code or a conftest.py imports it.
    ({**PROJECT, "tests/test_io.py": "import yaml_not_installed\n"}, [], MISSING),
    ({**PROJECT, "src/calc/ops.py": "import yaml_not_installed.loader\n" + OPS}, [], MISSING),
    ({**PROJECT, "conftest.py": "import yaml_not_installed\n"}, [], MISSING),
], ids=["no tests", "too slow", "bad pytest arguments", "editable matches nothing", "a test imports a missing module",
        "the code imports one", "conftest.py imports one"])
def test_bad_input_is_one_line_and_the_tree_stays_as_it_was(tmp_path, capsys, files, flags, words):
    repo = make_project(tmp_path / "calc", files)
    before = tree_state(repo)
    assert run_fix(repo, tmp_path, *flags) == 1
    one_line_error(capsys, *words)
    assert tree_state(repo) == before


def test_an_editable_glob_that_matches_nothing_is_told_before_the_tests_run(tmp_path, capsys):
    # A typo costs nothing: the project's tests (which can take minutes) never start.
    repo = make_project(tmp_path / "calc")
    assert run_fix(repo, tmp_path, "--editable", "src/calc/opz.py") == 1
    assert "starting tests" not in capsys.readouterr().out


def test_an_interpreter_without_pytest_is_one_line(tmp_path, capsys):
    repo = make_project(tmp_path / "calc")
    python = fake_venv(tmp_path / "bare", packages=False)
    assert run_fix(repo, tmp_path, "--python", str(python)) == 1
    one_line_error(capsys, f"pytest is not installed for {python}", "--python")


def test_a_huge_repository_is_refused_before_anything_is_copied(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(user_repo, "TREE_BYTES", 100)
    repo = make_project(tmp_path / "calc")
    assert run_fix(repo, tmp_path) == 1
    one_line_error(capsys, "more than a run's copy may", "leave large data out of git")


def test_an_unreadable_file_is_left_out_with_a_note(tmp_path, capsys, monkeypatch):
    real_copy = user_repo._copy_file

    def unreadable_notes(source, target):
        if source.name == "notes.txt":
            raise PermissionError(13, "Permission denied")
        return real_copy(source, target)
    monkeypatch.setattr(user_repo, "_copy_file", unreadable_notes)
    repo = make_project(tmp_path / "calc", {**PROJECT, "src/calc/ops.py": OPS_FIXED, "notes.txt": "mine\n"})
    assert run_fix(repo, tmp_path) == 0
    printed = capsys.readouterr().out
    assert "note: left out of the copy: notes.txt (Permission denied)" in printed


def test_binary_editable_files_are_skipped_and_the_budget_says_what_it_left_out(fake_ollama, tmp_path, capsys,
                                                                                 monkeypatch):
    monkeypatch.setattr(user_task, "READ_FILES", 1)
    repo = make_project(tmp_path / "calc", {**PROJECT, "src/calc/logo.png": b"\x89PNG\r\n\x1a\n\0\0"})
    before = tree_state(repo)
    fake_ollama.play([text("I would rather not."), done()])
    assert run_fix(repo, tmp_path, "--editable", "src/calc/*", host=fake_ollama.url) == fix.NOT_APPLIED
    printed = capsys.readouterr().out
    assert "note: budget: 1 files readable" in printed and "1 left out: tests/test_ops.py" in printed
    assert "note: skipped from --editable: src/calc/logo.png (binary)" in printed
    assert "editable: src/calc/__init__.py, src/calc/ops.py" in printed
    assert tree_state(repo) == before


@pytest.mark.skipif(sandbox.detect()[0] == "none", reason="the copy takes the repository's place only in the sandbox")
def test_an_editable_install_imports_the_copy_never_the_users_files(fake_ollama, tmp_path, capsys):
    # `pip install -e .` leaves a path file naming the repository's src/: inside the sandbox that
    # path holds the copy the model edits, so the verdict sees the edit and the user's tree stays hidden.
    repo = tmp_path / "calc"
    python = fake_venv(repo / ".venv", paths=[repo / "src"])
    make_project(repo, {**PROJECT, "pyproject.toml": '[project]\nname = "calc"\n'})
    before = tree_state(repo)
    fake_ollama.play([done(tool_calls=[ADD_FIX])], [text("Fixed add."), done()])
    assert run_fix(repo, tmp_path, host=fake_ollama.url) == fix.NOT_APPLIED  # no terminal: not applied
    printed = capsys.readouterr().out
    assert f"(interpreter {python})" in printed and "starting tests: exit_code 1, 1 passed, 1 failed" in printed
    assert "verdict: repaired" in printed and tree_state(repo) == before


@pytest.mark.parametrize("git", [False, True], ids=["an empty folder", "a repository that tracks nothing"])
def test_a_repository_with_no_files_is_one_line(tmp_path, capsys, git):
    repo = make_project(tmp_path / "empty", {}, git=False)
    repo.mkdir(parents=True, exist_ok=True)
    if git:
        subprocess.run(["git", "-C", str(repo), "init", "-q"], check=True)
    assert run_fix(repo, tmp_path) == 1
    one_line_error(capsys, "holds no files", "--repo")
