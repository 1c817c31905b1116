"""Task folders are untrusted input: each problem in one is one line naming the task and the
field, and a task from any folder runs end to end (record_run.py --tasks-dir, then replay)."""
import json
import os
from pathlib import Path

import pytest

import evaluate
import improve
import record_run
import replay
from fixing.task import UserTask
from repo_tools import RepoTools
from testing.scripted import call, done, text
from workspace.task_catalog import fresh_copy, load_task, task_names

CODE = "def double(x):\n    return x + x + 1\n"
TEST = ("from app import double\n\n\ndef test_double():\n    assert double(2) == 4\n\n\n"
        "def test_whole_numbers_stay_whole():\n    assert isinstance(double(3), int)\n")
SPEC = {"title": "double is off by one", "ticket": "double(2) gives 5, not 4.",
        "readable": ["app.py", "tests/test_app.py"], "editable": ["app.py"]}


def make_task(tasks_dir, name="doubling", change=None, spec=None):
    """DIR/<name>/ with task.json and repo/ (app.py and its tests); `change(folder)` breaks it."""
    folder = Path(tasks_dir) / name
    (folder / "repo" / "tests").mkdir(parents=True)
    (folder / "repo" / "app.py").write_text(CODE)
    (folder / "repo" / "tests" / "test_app.py").write_text(TEST)
    (folder / "task.json").write_text(spec if isinstance(spec, str) else json.dumps(spec or SPEC))
    if change:
        change(folder)
    return folder


def spec_with(**fields):
    return {key: value for key, value in {**SPEC, **fields}.items() if value is not None}


def test_a_task_from_any_folder_loads_and_copies(tmp_path):
    folder = make_task(tmp_path / "tasks")
    assert task_names(tmp_path / "tasks") == ["doubling"]
    task = load_task("doubling", tmp_path / "tasks")
    assert (task.repo, task.folder, task.editable) == (folder / "repo", folder, ("app.py",))
    copy = fresh_copy(task, tmp_path / "work")
    assert (copy / "app.py").read_text() == CODE
    assert RepoTools(copy, task=task).read_file("app.py")["text"] == CODE


def outside_file(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the outside file's text")
    return secret


def link(target):
    return lambda folder: os.symlink(target, folder / "repo" / "leak.py")


@pytest.mark.parametrize("spec, change, field", [
    ("{not json", None, "task.json cannot be read as JSON"),
    ("[1, 2]", None, "task.json must be a JSON object, not a list"),
    (spec_with(title=None), None, "title must be non-empty text"),  # a missing field: never a KeyError
    (spec_with(ticket="  "), None, "ticket must be non-empty text"),
    (spec_with(readable="app.py"), None, "readable must be a non-empty list of file paths"),
    (spec_with(editable=[]), None, "editable must be a non-empty list of file paths"),
    (spec_with(readable=["app.py", 3]), None, "readable must be a non-empty list of file paths"),
    (spec_with(readable=["/etc/passwd"]), None, "readable: '/etc/passwd' must be a plain relative path"),
    (spec_with(readable=["../task.json"]), None, "readable: '../task.json' must be a plain relative path"),
    (spec_with(readable=["./app.py"]), None, "readable: './app.py' must be a plain relative path"),
    (spec_with(readable=["app.py", "gone.py"]), None, "readable: 'gone.py' does not exist"),
    (spec_with(readable=["app.py", "tests"]), None, "readable: 'tests' is not a regular file"),
    (spec_with(readable=["tests/test_app.py"]), None, "editable: 'app.py' must be readable too"),
    (spec_with(readable=["app.py", "tests/test_app.py", "lib.py"], editable=["lib.py"]),
     lambda f: (f / "repo" / "lib.py").write_text(""), None),  # fine: a module that is no test
    (spec_with(readable=["app.py", "notes.txt"], editable=["notes.txt"]),
     lambda f: (f / "repo" / "notes.txt").write_text(""), "editable: 'notes.txt' must be a Python module"),
    (spec_with(title="x" * 200_000), None, "task.json is larger than 100000 bytes"),
    (spec_with(repo="/etc"), None, "repo must be a relative folder path"),
    (spec_with(repo="../../.."), None, "repo '../../..' is outside"),
    (spec_with(repo="elsewhere"), lambda f: os.symlink(f / "repo", f / "elsewhere"),
     "repo 'elsewhere' is not a folder reached without links"),
    (spec_with(repo=5), None, "repo must be a relative folder path"),
    (SPEC, link("/etc/hostname"), "repo: leak.py is a link"),
    (spec_with(readable=["app.py", "leak.py"]), link("/etc/hostname"), "readable: 'leak.py' is a link"),
    (spec_with(readable=["app.py", "sub/x.py"]), lambda f: os.symlink(f / "repo" / "tests", f / "repo" / "sub"),
     "readable: 'sub/x.py' is under a link (sub)"),
    (SPEC, lambda f: os.mkfifo(f / "repo" / "pipe"), "repo: pipe is a special file"),
    (SPEC, lambda f: (f / "task.json").unlink() or os.mkfifo(f / "task.json"), "task.json is not a regular file"),
])
def test_each_problem_in_a_task_folder_is_one_line_naming_the_task_and_the_field(tmp_path, spec, change, field):
    make_task(tmp_path, spec=spec, change=change)
    if field is None:
        assert load_task("doubling", tmp_path).editable == ("lib.py",)
        return
    with pytest.raises(ValueError) as raised:
        load_task("doubling", tmp_path)
    message = str(raised.value)
    assert message.startswith("task 'doubling': ") and field in message and "\n" not in message, message


@pytest.mark.parametrize("path", ["conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml",
                                  "tests/__init__.py", "tests/helpers.py", "tests/conftest.py", "test_app.py",
                                  "src/conftest.py", "app_test.py", "test/helpers.py", "src/tests/helpers.py"])
def test_tests_and_test_configuration_are_never_editable(tmp_path, path):
    def add(folder):
        (folder / "repo" / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / "repo" / path).write_text("")
    make_task(tmp_path, change=add, spec=spec_with(readable=["app.py", path], editable=[path]))
    with pytest.raises(ValueError, match=rf"^task 'doubling': editable: '{path}' is a test or test configuration"):
        load_task("doubling", tmp_path)


def test_a_task_and_a_users_project_count_the_same_files_as_tests(tmp_path):
    """One answer to "is this test code" (workspace/user_tests.py): a task's test files, for the
    verdict's "tests unchanged", the grades and the guardrails, are the files named like tests,
    wherever they are, as they are for fix.py's project before pytest says more."""
    make_task(tmp_path / "tasks")
    task = load_task("doubling", tmp_path / "tasks")
    user = UserTask(name="fix:t", title="t", ticket="t", readable=(), editable=(), repo=tmp_path)
    paths = ["tests/test_app.py", "tests/data.json", "test_app.py", "app_test.py", "conftest.py", "test/helpers.py",
             "src/pkg/tests/util.py", "app.py", "contests/app.py", "latest.py", "testing.py", "pytest.ini"]
    named = {"tests/test_app.py", "tests/data.json", "test_app.py", "app_test.py", "conftest.py", "test/helpers.py",
             "src/pkg/tests/util.py"}
    assert {p for p in paths if task.is_test_file(p)} == {p for p in paths if user.is_test_file(p)} == named


def test_a_link_planted_after_the_check_is_never_followed_by_a_copy(tmp_path):
    folder = make_task(tmp_path / "tasks")
    task = load_task("doubling", tmp_path / "tasks")
    os.symlink(outside_file(tmp_path), folder / "repo" / "notes.py")
    with pytest.raises(ValueError, match=r"^task 'doubling': repo: notes\.py is a link"):
        fresh_copy(task, tmp_path / "work")
    copied = tmp_path / "work" / "repo" / "notes.py"
    assert not copied.exists() or copied.is_symlink()  # copied as a link at most, never its text


def test_an_unknown_task_or_folder_names_what_there_is(tmp_path):
    make_task(tmp_path)
    with pytest.raises(ValueError, match=r"no task 'halving' in .*; tasks: doubling$"):
        load_task("halving", tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"tasks: \(none\)$"):
        load_task("doubling", tmp_path / "empty")
    with pytest.raises(ValueError, match=r"^--tasks-dir .*missing does not exist$"):  # the mistake, named
        load_task("doubling", tmp_path / "missing")


@pytest.mark.parametrize("name", ["owned\x1b]0;title\x07", "\u202eyp.evil", "c1\x9b2J", "del\x7f", "-flag", "ünï"])
def test_a_task_folder_named_outside_a_plain_character_set_is_refused_in_one_line(tmp_path, capsys, name):
    """A task's name is printed (progress lines, tables) and is part of each attempt's file name."""
    make_task(tmp_path)
    make_task(tmp_path, name)
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["--scripted", "--tasks-dir", str(tmp_path), "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert improve.main(["--scripted", "--tasks-dir", str(tmp_path), "--out", str(tmp_path / "out")]) == 1
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2
    for err in errors:
        assert err.startswith("error: a task folder in ") and "rename the folder" in err
        assert err.isascii() and err.isprintable(), err
    assert not (tmp_path / "out").exists()


def test_the_shipped_sample_keeps_its_repository_in_sample_repo():
    assert load_task("path_rules").repo == Path(__file__).resolve().parent.parent / "sample_repo"


def test_a_shipped_task_copied_elsewhere_may_not_point_outside_its_folder(tmp_path):
    # The shipped catalog alone may point into the project; a folder of someone else's may not.
    spec = json.loads((Path(__file__).resolve().parent.parent / "tasks/path_rules/task.json").read_text())
    make_task(tmp_path, "path_rules", spec=spec)
    with pytest.raises(ValueError, match=r"^task 'path_rules': repo '\.\./\.\./sample_repo' is outside"):
        load_task("path_rules", tmp_path)


def test_record_run_refuses_a_broken_task_in_one_line_before_asking_the_server(fake_ollama, tmp_path, capsys):
    make_task(tmp_path / "tasks", spec=spec_with(readable=["app.py", "conftest.py"], editable=["conftest.py"]),
              change=lambda folder: (folder / "repo" / "conftest.py").write_text(""))
    code = record_run.main(["--host", fake_ollama.url, "--output", str(tmp_path / "run.json"),
                            "--tasks-dir", str(tmp_path / "tasks"), "--task", "doubling"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: task 'doubling': editable: 'conftest.py'") and err.count("\n") == 1
    assert fake_ollama.requests == [] and not (tmp_path / "run.json").exists()


def test_a_task_outside_the_project_is_recorded_and_replayed_end_to_end(fake_ollama, tmp_path, capsys):
    tasks = tmp_path / "elsewhere" / "tasks"
    make_task(tasks)
    fix = call("replace_text", old="return x + x + 1", new="return x + x")
    fake_ollama.play([done(tool_calls=[call("read_file", path="app.py")])], [done(tool_calls=[fix])],
                     [done(tool_calls=[call("run_tests")])], [text("double no longer adds one."), done()])
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--output", str(output), "--scripted", "--about", "an outside task",
                            "--tasks-dir", str(tasks), "--task", "doubling"]) == 0
    printed = capsys.readouterr().out
    assert "on a fresh copy of task doubling" in printed
    assert "starting tests: exit_code 1, 1 passed, 1 failed" in printed
    recording = json.loads(output.read_text())
    assert recording["task_name"] == "doubling" and recording["verdict"] == "repaired"
    assert recording["changed_files"] == ["app.py"] and "double(2) gives 5" in recording["task"]
    for served in (True, False):
        assert replay.replay(output, served=served, tasks_dir=tasks)["differences"] == []
    assert replay.main(["--served", "--tasks-dir", str(tasks), str(output)]) == 0
