"""fix.py's parts on their own: reading a user's repository without writing to it, the project's
pytest command, the patch and its guardrails, and a recorded task checked like any untrusted input."""
import os
import subprocess
import sys

import pytest

from fixing.left_out import KEPT, kept
from fixing.offer import patch_lines
from fixing.patch import make_patch, moved_on, refusal, stat_lines
from fixing.project_pytest import config_file, project_command
from fixing.repo import git_state, list_files, starting_tree
from fixing.task import UserTask, recorded_task, spec_problem, task_from_spec
from tests.user_repos import OPS, OPS_FIXED, PROJECT, fake_venv, make_project, tree_state
from workspace.pytest_collection import missing_modules
from workspace.pytest_output import blamed_files, failures
from workspace.task_catalog import load_task


def test_git_lists_the_work_in_progress_and_nothing_is_written_into_dot_git(tmp_path):
    repo = make_project(tmp_path / "calc", {**PROJECT, ".gitignore": "*.log\n", "gone.py": "x = 1\n"})
    (repo / "gone.py").unlink()                     # deleted, not yet committed
    (repo / "new.py").write_text("y = 2\n")          # new, not yet added
    (repo / "debug.log").write_text("ignored\n")
    fake_venv(repo / ".venv")                        # a venv git does not ignore
    before = tree_state(repo / ".git")
    assert list_files(repo) == [".gitignore", "new.py", "pyproject.toml", "src/calc/__init__.py",
                                "src/calc/ops.py", "tests/test_ops.py"]
    assert git_state(repo)["dirty"] is True and len(git_state(repo)["commit"]) == 40
    assert tree_state(repo / ".git") == before


def test_a_folder_is_walked_without_caches_or_virtual_environments(tmp_path):
    repo = make_project(tmp_path / "calc", {**PROJECT, "env/pyvenv.cfg": "", "env/lib/x.py": "",
                                            "src/calc/__pycache__/ops.pyc": "", "pkg.egg-info/PKG-INFO": ""}, git=False)
    os.symlink("src/calc/ops.py", repo / "alias.py")
    assert git_state(repo) is None
    assert list_files(repo) == ["alias.py", "pyproject.toml", "src/calc/__init__.py", "src/calc/ops.py",
                                "tests/test_ops.py"]
    copied, skipped = starting_tree(repo, list_files(repo), tmp_path / "tree")
    assert skipped == [] and os.readlink(tmp_path / "tree" / "alias.py") == "src/calc/ops.py"  # a link stays a link


def test_a_link_leads_to_the_same_file_inside_the_copy_and_never_out_of_it(tmp_path):
    repo = make_project(tmp_path / "calc", {"README.md": "x\n", "docs/index.md": "y\n"}, git=False, links={
        "absolute.md": str(tmp_path / "calc" / "README.md"), "docs/up.md": "../README.md",
        "home": str(tmp_path), "docs/sibling": "../../elsewhere/file"})
    copied, skipped = starting_tree(repo, list_files(repo), tmp_path / "tree")
    # The absolute link would lead to the user's own README.md: in the copy it leads to the copy's.
    assert os.readlink(tmp_path / "tree/absolute.md") == "README.md"
    assert os.readlink(tmp_path / "tree/docs/up.md") == "../README.md"
    assert skipped == ["docs/sibling (a link pointing outside the repository)",
                       "home (a link pointing outside the repository)"]
    assert not os.path.lexists(tmp_path / "tree/home") and "home" not in copied


@pytest.mark.parametrize("files, expected", [
    ({"pyproject.toml": "[project]\n", "setup.cfg": "[tool:pytest]\n"}, "setup.cfg"),
    ({"pyproject.toml": "[tool.pytest.ini_options]\n", "tox.ini": "[pytest]\n"}, "pyproject.toml"),
    ({"pytest.ini": "", "pyproject.toml": "[tool.pytest.ini_options]\n"}, "pytest.ini"),
    ({"tox.ini": "[tox]\n", "setup.cfg": "[metadata]\n"}, None),
])
def test_the_configuration_file_is_the_one_pytest_would_pick(tmp_path, files, expected):
    make_project(tmp_path, files, git=False)
    assert config_file(tmp_path) == expected


def test_plugins_autoload_only_for_the_projects_own_interpreter(tmp_path):
    harness = dict(project_command(tmp_path, sys.executable).env)
    own = project_command(tmp_path, fake_venv(tmp_path / ".venv"))
    assert harness["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1" and "PYTEST_DISABLE_PLUGIN_AUTOLOAD" not in dict(own.env)
    assert str(tmp_path / ".venv") in own.places and own.inside == str(tmp_path)
    assert own.args[-2:] == ("-c", os.devnull)  # no configuration of its own: none from above it either


def test_the_harness_interpreter_reached_through_a_linked_folder_is_still_the_harness_one(tmp_path, monkeypatch):
    # A checkout whose .venv is a link to another checkout's (as a second worktree's may be).
    (tmp_path / "linked-bin").symlink_to(os.path.dirname(os.path.abspath(sys.executable)))
    through_link = str(tmp_path / "linked-bin" / os.path.basename(sys.executable))
    real = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(sys.executable))), os.path.basename(sys.executable))
    monkeypatch.setattr(sys, "executable", through_link)
    for python in (through_link, real):
        assert dict(project_command(tmp_path, python).env)["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"


def test_failures_are_read_from_the_short_summary():
    output = ("x\nFAILED tests/test_a.py::test_b[1-2] - AssertionError: assert 1 == 2\nERROR tests/test_c.py\n"
              "SUBFAILED(n=2, m='a b') tests/test_d.py::T::test_e - assert 2 < 2\nSUBFAILED[message] tests/test_f.py::g"
              "\nFAILED tests/test_d.py::T::test_e - contains 2 failed subtests\n4 failed")
    assert failures(output) == [("tests/test_a.py::test_b[1-2]", "AssertionError: assert 1 == 2"),
                                ("tests/test_c.py", ""), ("tests/test_d.py::T::test_e", "assert 2 < 2"),
                                ("tests/test_f.py::g", "")]


def test_a_missing_module_is_a_dependency_only_when_the_repository_does_not_hold_it():
    output = ("E   ModuleNotFoundError: No module named 'calc.gone'\nE   ModuleNotFoundError: No module named 'yaml'\n"
              "ERROR tests/test_b.py - ModuleNotFoundError: No module named 'helpers'\n"
              "FAILED tests/test_c.py::test_x - ModuleNotFoundError: No module named 'requests.adapters'\n")
    files = ["src/calc/__init__.py", "tests/helpers.py", "tests/test_b.py"]
    assert missing_modules({"exit_code": 1, "output": output}, files) == ["yaml", "requests.adapters"]
    assert missing_modules({"exit_code": 0, "output": output}, files) == []  # the tests pass: nothing is missing


def a_task(tmp_path, editable=("ops.py",)):
    tree = make_project(tmp_path / "tree", {"ops.py": OPS.rstrip("\n"), "test_ops.py": "x = 1\n"}, git=False)
    return UserTask(name="fix:t", title="t", ticket="t", readable=("ops.py", "test_ops.py"), editable=editable,
                    repo=tree, tests=("test_ops.py",))


def test_the_code_a_traceback_points_at_is_named_in_order():
    """The real 1.5B model, shown statlite/__init__.py first, answered with it unchanged; the file
    the traceback names is what it must see first."""
    output = ("tests/test_summary.py:9: \n    return sum(values) / (len(values) - 1)\n"
              "E   ZeroDivisionError: division by zero\nstatlite/summary.py:6: ZeroDivisionError\n"
              "<python>/lib/python3.11/decimal.py:3: in x\nstatlite/summary.py:6: again\n")
    files = ["statlite/__init__.py", "statlite/summary.py", "tests/test_summary.py"]
    assert blamed_files(output, files) == ["tests/test_summary.py", "statlite/summary.py"]


def test_the_patch_applies_with_git_even_without_a_final_newline(tmp_path):
    task = a_task(tmp_path)
    work = make_project(tmp_path / "work", {"ops.py": OPS_FIXED.rstrip("\n"), "test_ops.py": "x = 1\n"}, git=False)
    patch = make_patch(task, work)
    assert patch.changes == {"ops.py": (1, 1)} and "\\ No newline at end of file" not in patch.text  # not the last line
    (work / "ops.py").write_text(OPS_FIXED.rstrip("\n") + "  # done")
    patch = make_patch(task, work)
    assert patch.text.count("\\ No newline at end of file") == 2 and patch.changed_lines == 4
    (tmp_path / "p.diff").write_text(patch.text)
    target = make_project(tmp_path / "target", {"ops.py": OPS.rstrip("\n")}, git=False)
    subprocess.run(["git", "apply", str(tmp_path / "p.diff")], cwd=target, check=True)
    assert (target / "ops.py").read_bytes() == (work / "ops.py").read_bytes()
    assert stat_lines(patch) == [" ops.py |   4 ++--", " 1 file changed, 2 insertions(+), 2 deletions(-)"]


def test_the_patch_holds_and_shows_exactly_the_bytes_written(tmp_path):
    # CRLF endings, a form feed (Python allows one between lines) and a lone CR inside a line:
    # the patch is cut at "\n" alone, as git reads it, and the terminal shows each "\r".
    start = "def add(a, b):\r\n    return a - b\r\n\x0c\r\n\r\ndef mul(a, b):\r\n    return a * b  # x\ry\r\n"
    task = a_task(tmp_path)
    (task.repo / "ops.py").write_bytes(start.encode())
    work = make_project(tmp_path / "work", {"ops.py": start.replace("a - b\r\n", "a + b\n")}, git=False)
    patch = make_patch(task, work)
    assert "-    return a - b\r\n+    return a + b\n" in patch.text and patch.changes == {"ops.py": (1, 1)}
    assert "-    return a - b\\x0d" in patch_lines(patch.text, False) and "+    return a + b" in patch_lines(patch.text, False)
    (tmp_path / "p.diff").write_bytes(patch.text.encode())
    target = make_project(tmp_path / "target", {"ops.py": start}, git=False)
    subprocess.run(["git", "apply", str(tmp_path / "p.diff")], cwd=target, check=True)
    assert (target / "ops.py").read_bytes() == (work / "ops.py").read_bytes()


def test_the_guardrails_name_their_reason(tmp_path):
    task = a_task(tmp_path, editable=("ops.py", "test_ops.py"))
    work = make_project(tmp_path / "work", {"ops.py": OPS_FIXED.rstrip("\n"), "test_ops.py": "x = 2\n"}, git=False)
    judged = {"verdict": "tests were modified", "changed_files": ["ops.py", "test_ops.py"]}
    assert refusal(make_patch(task, work), judged, task, 80).startswith("the patch changes test files (test_ops.py)")
    (work / "test_ops.py").write_text("x = 1\n")
    judged = {"verdict": "repaired", "changed_files": ["ops.py", "stray.py"]}
    assert "outside the patch (stray.py)" in refusal(make_patch(task, work), judged, task, 80)
    judged["changed_files"] = ["ops.py"]
    assert refusal(make_patch(task, work), judged, task, 80) is None


def test_a_file_replaced_by_a_link_counts_as_changed(tmp_path):
    task = a_task(tmp_path)
    user = make_project(tmp_path / "user", {"ops.py": OPS.rstrip("\n"), "elsewhere.py": OPS.rstrip("\n")}, git=False)
    assert moved_on(user, ["ops.py"], task.repo) == []
    (user / "ops.py").unlink()
    os.symlink(user / "elsewhere.py", user / "ops.py")  # the same bytes, through a link
    assert moved_on(user, ["ops.py"], task.repo) == ["ops.py"]


SPEC = {"name": "fix:t", "title": "t", "ticket": "t", "readable": ["a.py"], "editable": ["a.py"], "tests": [],
        "repo": "/nowhere", "python": sys.executable, "tests_args": [], "timeout": 60.0}


@pytest.mark.parametrize("change, words", [
    ({"readable": ["../etc/passwd"]}, "relative path inside"),
    ({"python": "/bin/sh"}, "named python"),
    ({"timeout": True}, "positive number"),
    ({"tests_args": "-x"}, "lists of text"),
    ({"left_out": ["a.bin (binary)", 7]}, "left_out must be a list"),
    ({"left_out": ["x.bin (binary)"] * 500}, "left_out must be a list of at most"),
    ({"tracebacks": "short --pdb"}, "tracebacks must be 'short' or absent"),
    ({"tracebacks": ["short"]}, "tracebacks must be 'short' or absent"),
])
def test_a_recorded_task_spec_is_untrusted_input(change, words):
    assert words in spec_problem({**SPEC, **change}, [])
    with pytest.raises(ValueError, match="task_spec"):
        task_from_spec({**SPEC, **change})


def test_a_recorded_task_runs_its_tests_with_the_tracebacks_it_was_recorded_with():
    # Recordings from before fix.py asked for short tracebacks ran pytest's default: a replay
    # runs them so again, or the first message would not be the one the model was sent.
    assert "--tb=short" in recorded_task({"task_spec": {**SPEC, "tracebacks": "short"}, "sample": {}}, tree=False).pytest.args
    assert not any(arg.startswith("--tb") for arg in recorded_task({"task_spec": SPEC, "sample": {}}, tree=False).pytest.args)


def test_a_recording_keeps_the_first_few_hundred_files_left_out_and_a_count():
    left_out = [f"data/{n}.bin (binary)" for n in range(KEPT + 5)]
    assert kept(left_out)[-1] == "and 5 more" and len(kept(left_out)) == KEPT + 1
    assert spec_problem({**SPEC, "left_out": list(kept(left_out))}, []) is None


def test_a_recorded_task_is_rebuilt_only_beside_its_repository(tmp_path):
    assert recorded_task({"task_name": "path_rules"}) == load_task("path_rules")
    assert recorded_task({"task_spec": SPEC, "sample": {}}, tree=False).editable == ("a.py",)  # served: no tree
    with pytest.raises(ValueError, match="is not here"):
        recorded_task({"task_spec": SPEC, "sample": {"a.py": "0"}})


def test_a_module_that_did_not_import_at_the_start_may_bring_more_passing_tests():
    from workspace.verdict import verdict
    start = {"exit_code": 2, "passed": 1, "failed": 0, "errors": 1}
    final = {"exit_code": 0, "passed": 4, "failed": 0, "errors": 0}
    assert verdict(final, True, start) == "repaired"
    assert verdict(final, True, {**start, "errors": 0, "failed": 1}) == "not repaired"  # 2 counted, 4 passed
    assert verdict({**final, "passed": 1}, True, start) == "not repaired"
