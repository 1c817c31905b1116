"""fix.py on how ordinary projects set pytest up (issue 33): a configuration whose `addopts`
stops at the first failure, replays the last failures or asks for another verbosity, fixture
modules loaded as plugins, and a nested repository the tests read. Each runs fix.py itself on a
small repository in a temporary folder, against the loopback Ollama server."""
import json
import subprocess

import pytest

import fix
from testing.scripted import call, done, text
from tests.user_repos import ADD_FIX, OPS, OPS_FIXED, PROJECT, make_project, tree_state

CODE = {"src/calc/__init__.py": "", "src/calc/ops.py": OPS, "tests/test_ops.py": PROJECT["tests/test_ops.py"]}
INI = "pythonpath = src\naddopts = {}\n"


def run_fix(fake, repo, tmp_path, *flags):
    output = tmp_path / "out" / "run.json"
    code = fix.main(["--repo", str(repo), "--host", fake.url, "--output", str(output),
                     "--scripted", "--about", "a test repair", "--settings", "levers", *flags])
    return code, output


@pytest.mark.parametrize("config, lines", [
    ("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["src"]\naddopts = "-x"\n'),
    ("pytest.ini", "[pytest]\n" + INI.format("--maxfail=1 --sw")),
    ("setup.cfg", "[tool:pytest]\n" + INI.format("-x --lf")),
    ("tox.ini", "[pytest]\n" + INI.format("--stepwise --last-failed --lfnf=none")),
    ("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["src"]\naddopts = "-ra -q"\n'),
    ("pytest.ini", "[pytest]\n" + INI.format("-qq")),
    ("pyproject.toml", '[tool.pytest]\npythonpath = ["src"]\naddopts = ["-x", "-v", "-v"]\n'),
], ids=["pyproject -x", "pytest.ini --maxfail --sw", "setup.cfg -x --lf", "tox.ini --stepwise --last-failed",
        "pyproject -ra -q", "pytest.ini -qq", "native toml -x -vv"])
def test_the_projects_addopts_never_hide_a_test_from_the_count(fake_ollama, tmp_path, capsys, config, lines):
    # Every test runs and is counted, whatever the configuration stops at or prints: the start
    # sees one failure and one pass, and the repair passes both.
    repo = make_project(tmp_path / "calc", {**CODE, config: lines})
    fake_ollama.play([done(tool_calls=[ADD_FIX])], [text("Fixed add."), done()])
    code, _ = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "starting tests: exit_code 1, 1 passed, 1 failed" in printed
    assert "verdict: repaired (independent pytest: exit_code 0, 2 passed" in printed
    assert (repo / "src/calc/ops.py").read_text() == OPS_FIXED


def test_a_selection_asked_for_with_tests_stays(fake_ollama, tmp_path, capsys):
    # `--tests -x` is the user's own choice: it stops at the first failure, as asked.
    repo = make_project(tmp_path / "calc", {**CODE, "pytest.ini": "[pytest]\n" + INI.format("-q"),
                                            "tests/test_more.py": "def test_more():\n    assert 0\n"})
    fake_ollama.play([text("I cannot tell."), done()], [text("Still no."), done()])
    code, _ = run_fix(fake_ollama, repo, tmp_path, "--tests=-x tests")
    printed = capsys.readouterr().out
    assert code == fix.NOT_APPLIED and "starting tests: exit_code 1, 0 passed, 1 failed" in printed, printed


DATA_TEST = ("from pathlib import Path\n\n\ndef test_the_table_is_there():\n"
             "    assert Path('data/table.txt').read_text() == 'rows\\n'\n")


def git(folder, *args):
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
                    "-c", "protocol.file.allow=always", *args], check=True, capture_output=True)


@pytest.mark.parametrize("how", ["an untracked nested repository", "a submodule"])
def test_a_nested_repository_the_tests_read_is_copied(fake_ollama, tmp_path, capsys, how):
    # git lists a nested repository as one folder: its files must still reach every copy, or the
    # model is asked to repair a failure the copy made.
    repo = make_project(tmp_path / "calc", {**PROJECT, "tests/test_data.py": DATA_TEST})
    data = make_project(tmp_path / ("data" if how == "a submodule" else "calc/data"), {"table.txt": "rows\n"})
    if how == "a submodule":
        git(repo, "submodule", "add", "-q", str(data), "data")
        git(repo, "commit", "-qm", "data")
    before = tree_state(repo)
    fake_ollama.play([done(tool_calls=[ADD_FIX])], [text("Fixed add."), done()])
    code, _ = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "starting tests: exit_code 1, 2 passed, 1 failed" in printed and "verdict: repaired" in printed
    changed = {path for path in before if before[path] != tree_state(repo).get(path)}
    assert changed == {"src/calc/ops.py"}


PLUGGED = {"src/calc/__init__.py": "", "src/calc/ops.py": OPS, "checks/__init__.py": "",
           "checks/expected.py": "import pytest\n\n\n@pytest.fixture\ndef total():\n    return 4\n",
           "tests/test_ops.py": "from calc.ops import add\n\n\ndef test_add(total):\n    assert add(2, 2) == total\n"}


@pytest.mark.parametrize("files", [
    {**PLUGGED, "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src", "."]\n',
     "conftest.py": 'pytest_plugins = ["checks.expected"]\n'},
    {**PLUGGED, "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src", "."]\naddopts = "-p checks.expected"\n'},
], ids=["pytest_plugins in conftest.py", "-p in addopts"])
def test_a_fixture_module_loaded_as_a_plugin_is_test_code(fake_ollama, tmp_path, capsys, files):
    repo = make_project(tmp_path / "calc", files)
    before = tree_state(repo)
    # The "repair" a model may find: make the fixture expect what the broken code returns.
    cheat = call("replace_text", path="checks/expected.py", old="return 4", new="return 0")
    fake_ollama.play([done(tool_calls=[cheat])], [text("The tests pass now."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == fix.NOT_APPLIED and tree_state(repo) == before, printed
    assert "note: test code the tests import, never editable by default: checks/__init__.py, checks/expected.py" in printed
    spec = json.loads(output.read_text())["task_spec"]
    assert spec["editable"] == ["src/calc/ops.py"] and "checks/expected.py" in spec["tests"]
    assert "verdict: not repaired" in printed


DOCUMENTED = ('def add(a, b):\n    """The sum.\n\n    >>> mul(2, 3)\n    6\n    """\n    return a - b\n\n\n'
              'def mul(a, b):\n    return a * b\n')


def test_a_module_pytest_collects_only_for_its_doctests_is_code_to_repair(fake_ollama, tmp_path, capsys):
    # `--doctest-modules` (parse's own configuration does this) makes pytest collect the package's
    # modules: collected for their examples, they are still the code to repair, not test files.
    repo = make_project(tmp_path / "calc", {
        **CODE, "src/calc/ops.py": DOCUMENTED,
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\naddopts = "--doctest-modules"\n'})
    fake_ollama.play([done(tool_calls=[ADD_FIX])], [text("Fixed add."), done()])
    code, _ = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "editable: src/calc/ops.py" in printed and "2 passed, 1 failed" in printed
    assert (repo / "src/calc/ops.py").read_text() == DOCUMENTED.replace("a - b", "a + b")


@pytest.mark.parametrize("path, name, doctest", [
    ("parse/__init__.py", "parse", True), ("parse/__init__.py", "parse.compile", True),
    ("src/pkg/mod.py", "pkg.mod.Thing.run", True), ("mod.py", "mod", True),
    ("mod.py", "test_mod", False), ("mod.py", "TestMod::test_x", False), ("mod.py", "test_p[1.5]", False)])
def test_a_doctest_item_is_told_from_a_test_by_its_name(path, name, doctest):
    from fixing.collected import is_doctest
    assert is_doctest(path, name) is doctest


def test_a_failure_under_a_long_test_function_still_reaches_the_model(fake_ollama, tmp_path, capsys):
    # iso8601's failing test sits under a parametrize of 200 lines: pytest's long traceback
    # printed it whole for each failure, the kept 4,000 characters held none of the E lines,
    # and the model was told only the tests' names. Short tracebacks keep each failure's lines.
    cases = "".join(f"    ({n}, 0, {n}),  # case {n}: a long comment that makes the decorator longer\n"
                    for n in range(1, 120)) + "    (2, 2, 4),\n    (3, 3, 6),\n    (4, 4, 8),\n"
    test = ("import pytest\nfrom calc.ops import add\n\n\n@pytest.mark.parametrize('a, b, total', [\n"
            f"{cases}])\ndef test_add_many(a, b, total):\n    assert add(a, b) == total\n")
    repo = make_project(tmp_path / "calc", {"src/calc/__init__.py": "", "src/calc/ops.py": OPS, "tests/test_many.py": test,
                                            "pytest.ini": "[pytest]\npythonpath = src\n"})
    fake_ollama.play([text("I cannot tell."), done()], [text("Still no."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path)
    assert code == fix.NOT_APPLIED, capsys.readouterr().out
    recording = json.loads(output.read_text())
    assert recording["task_spec"]["tracebacks"] == "short"  # a replay runs the tests so again
    first = recording["turns"][0]["request"]["messages"][1]["content"]
    details = first.split("The tests fail now:")[1]
    assert all(f"where 0 = add({n}, {n})" in details for n in (2, 3, 4)), first
