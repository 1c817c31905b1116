"""The allowlisted tools on real copies of the sample: paths, edits, and the pytest run."""
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from repo_tools import RepoTools, schemas_for
from tests.helpers import FIX_NEW, FIX_OLD, SCHEMAS
from tests.processes import gone_soon, grandchild, running_with, watching, write_probe
from workspace import sandbox
from workspace.pytest_run import OUTPUT_CHARS
from workspace.task_catalog import fresh_copy, load_task, solution_edits

pytestmark = pytest.mark.real_pytest_runs  # run_tests' timeout, output bounds and cleanup are what a real run does

# --- schemas -----------------------------------------------------------------------------

def test_schemas_are_flat_string_only_function_tools():
    assert [s["function"]["name"] for s in SCHEMAS] == ["read_file", "replace_text", "run_tests"]
    for schema in SCHEMAS:
        parameters = schema["function"]["parameters"]
        assert set(parameters) == {"type", "required", "properties"}
        for prop in parameters["properties"].values():
            assert set(prop) == {"type", "description"} and prop["type"] == "string"


# --- read_file -----------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["path_rules.py", "tests/test_path_rules.py", "./path_rules.py"])
def test_read_file_returns_allowlisted_files(tools, workspace, path):
    result = tools.read_file(path)
    assert result["text"] == (workspace / path).read_text()
    assert result["path"] == Path(path).as_posix()


@pytest.mark.parametrize("path", ["../sample_repo/path_rules.py", "tests/../path_rules.py", "/etc/passwd",
                                  "README.md", "tests", "", "tests/conftest.py"])
def test_read_file_refuses_anything_else(tools, path):
    with pytest.raises(ValueError):
        tools.read_file(path)


def test_read_file_refuses_a_symlink_that_leads_outside(tmp_path, workspace):
    secret = tmp_path / "secret.txt"
    secret.write_text("api-key")
    (workspace / "path_rules.py").unlink()
    (workspace / "path_rules.py").symlink_to(secret)
    with pytest.raises(ValueError, match="outside"):
        RepoTools(workspace).read_file("path_rules.py")


def test_read_file_refuses_a_symlinked_folder(tmp_path, workspace):
    elsewhere = tmp_path / "elsewhere"
    (workspace / "tests").rename(elsewhere)
    (workspace / "tests").symlink_to(elsewhere)
    with pytest.raises(ValueError, match="outside"):
        RepoTools(workspace).read_file("tests/test_path_rules.py")


# --- replace_text ----------------------------------------------------------------------------

@pytest.mark.parametrize("mode, kept", [(0o755, 0o755), (0o640, 0o644), (0o000, 0o644)])
def test_replace_text_edits_exactly_once_keeping_the_mode_but_always_readable(tools, workspace, mode, kept):
    target = workspace / "path_rules.py"
    os.chmod(target, mode)
    assert tools.replace_text(FIX_OLD, FIX_NEW) == {"path": "path_rules.py", "replaced": 1}
    assert FIX_NEW in target.read_text() and FIX_OLD not in target.read_text()
    assert target.stat().st_mode & 0o777 == kept  # sandboxed tests (run as nobody) can read it
    assert sorted(p.name for p in workspace.iterdir()) == ["path_rules.py", "tests"]  # no temp file left


def test_replace_text_refuses_an_edit_past_the_size_limit_and_the_file_stays_usable(tools, workspace):
    before = (workspace / "path_rules.py").read_bytes()
    with pytest.raises(ValueError, match="larger than 400000 bytes"):
        tools.replace_text(FIX_OLD, "x" * 50_000_000)
    assert (workspace / "path_rules.py").read_bytes() == before
    assert tools.replace_text(FIX_OLD, FIX_NEW)["replaced"] == 1  # later edits still work


@pytest.mark.parametrize("old, expected", [
    ("parts", "found 4 times"),           # ambiguous
    ("path.split('/')", "not found"),     # close but not exact
    ("", "non-empty"),
])
def test_replace_text_refuses_and_leaves_the_file_alone(tools, workspace, old, expected):
    before = (workspace / "path_rules.py").read_bytes()
    with pytest.raises(ValueError, match=expected) as error:
        tools.replace_text(old, "x")
    assert (workspace / "path_rules.py").read_bytes() == before
    if old:
        assert "Read the file again" in str(error.value)


def test_replace_text_keeps_every_byte_it_does_not_edit(tools, workspace):
    # A Latin-1 comment (not UTF-8), a real U+FFFD and a CRLF, far from the edit: decoding with
    # replacement and writing back would turn the first two bytes into U+FFFD.
    target = workspace / "path_rules.py"
    before = target.read_bytes() + b"# caf\xe9 \xff\xfe\r\n# \xef\xbf\xbd is a real one\n"
    target.write_bytes(before)
    assert "# caf\ufffd" in tools.read_file("path_rules.py")["text"]  # what the model is shown
    tools.replace_text(FIX_OLD, FIX_NEW)
    assert target.read_bytes() == before.replace(FIX_OLD.encode(), FIX_NEW.encode(), 1)


def test_old_text_over_bytes_that_are_not_utf8_is_refused_with_what_to_do_instead(tools, workspace):
    target = workspace / "path_rules.py"
    before = target.read_bytes() + b"# caf\xe9 au lait\n"
    target.write_bytes(before)
    # The model copies what it was shown, U+FFFD included: no such text is in the file's bytes.
    with pytest.raises(ValueError, match="bytes that are not UTF-8") as error:
        tools.replace_text("# caf\ufffd au lait", "# cafe au lait")
    assert "copy text beside them" in str(error.value) and target.read_bytes() == before
    tools.replace_text(" au lait", " noir")  # the text beside the byte can be edited, the byte kept
    assert target.read_bytes() == before.replace(b" au lait", b" noir")


def test_a_stale_edit_is_refused_after_the_text_changed(tools):
    tools.replace_text(FIX_OLD, FIX_NEW)
    with pytest.raises(ValueError, match="not found"):
        tools.replace_text(FIX_OLD, FIX_NEW)


def test_replace_text_never_touches_the_tests(tools, workspace):
    # The test file holds text the edit tool could match, but it is not the edit target.
    before = (workspace / "tests/test_path_rules.py").read_bytes()
    with pytest.raises(ValueError):
        tools.replace_text("def test_accepts_windows_separators", "def test_skipped")
    assert (workspace / "tests/test_path_rules.py").read_bytes() == before


# --- run_tests ---------------------------------------------------------------------------------

def test_run_tests_reports_the_samples_one_failure(tools, workspace):
    result = tools.run_tests()
    assert (result["exit_code"], result["passed"], result["failed"], result["timed_out"]) == (1, 3, 1, False)
    assert result["sandbox"] == sandbox.detect()[0]  # bubblewrap wherever it works
    assert "FAILED tests/test_path_rules.py::test_accepts_windows_separators" in result["output"]
    assert result["output"].rstrip().endswith("1 failed, 3 passed")  # durations removed
    assert not list(workspace.rglob("__pycache__")) and not (workspace / ".pytest_cache").exists()


def test_run_tests_passes_after_the_fix(tools):
    tools.replace_text(FIX_OLD, FIX_NEW)
    result = tools.run_tests()
    assert (result["exit_code"], result["passed"], result["failed"]) == (0, 4, 0)
    assert result["sandbox"] == sandbox.detect()[0]


def test_run_tests_output_names_no_path_of_this_copy_or_interpreter(tools, workspace):
    tools.replace_text(FIX_OLD, "parts = path.split(")  # a syntax error: pytest prints paths
    result = tools.run_tests()
    assert result["exit_code"] == 2 and "SyntaxError" in result["output"]
    assert 'File "path_rules.py"' in result["output"]
    for place in (str(workspace), sys.prefix, sys.base_prefix):
        assert place not in result["output"]


def test_run_tests_inherits_no_secrets(monkeypatch, workspace):
    for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OLLAMA_API_KEY", "MY_PASSWORD"):
        monkeypatch.setenv(name, "leaked-secret-value")
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    write_probe(workspace, """
seen = repr(dict(os.environ))
assert "leaked-secret-value" not in seen and "PYTHONPATH" not in seen, seen
assert os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
""")
    result = RepoTools(workspace).run_tests()
    assert result["exit_code"] == 0 and result["passed"] == 1, result["output"]


def test_run_tests_keeps_the_head_and_the_tail_and_counts_what_was_cut(workspace):
    write_probe(workspace, """
print("x" * 5_000_000)
assert False, "the end of the output"
""")
    result = RepoTools(workspace).run_tests()
    output = result["output"]
    assert len(output) <= OUTPUT_CHARS and result["failed"] == 1
    assert output.startswith("F") and output.rstrip().endswith("1 failed")  # pytest's first line and summary
    cut = int(re.search(r"\[\.\.\. (\d+) characters cut \.\.\.\]", output).group(1))
    assert 5_000_000 - OUTPUT_CHARS < cut < 5_000_000 + 20_000


def test_run_tests_timeout_kills_the_whole_tree(workspace):
    marker = f"coding-loop-marker-{uuid.uuid4().hex}"
    write_probe(workspace, grandchild(marker) + "while True:\n    pass")
    with watching(marker) as seen:
        result = RepoTools(workspace, test_timeout=1.0).run_tests()
    assert result["timed_out"] is True and result["exit_code"] != 0
    assert seen, "the grandchild never started"
    assert gone_soon(marker)


def test_children_left_behind_by_a_passing_run_are_killed(workspace):
    marker = f"coding-loop-marker-{uuid.uuid4().hex}"
    write_probe(workspace, grandchild(marker))
    with watching(marker) as seen:
        result = RepoTools(workspace).run_tests()
    assert result["exit_code"] == 0 and result["timed_out"] is False, result["output"]
    assert seen, "the grandchild never started"
    assert gone_soon(marker)


def test_a_tool_gets_no_more_than_the_time_left(workspace):
    write_probe(workspace, "time.sleep(30)")
    started = time.monotonic()
    result = RepoTools(workspace, test_timeout=15).invoke("run_tests", {}, time_left=0.6)
    assert result["timed_out"] is True
    assert time.monotonic() - started < 8  # far below the 15 s test timeout: the deadline won


def test_read_file_refuses_a_fifo_or_a_huge_file_left_by_tested_code(tools, workspace):
    os.unlink(workspace / "path_rules.py")
    os.mkfifo(workspace / "path_rules.py")  # reading it would block forever
    with pytest.raises(ValueError, match="not a regular file"):
        tools.read_file("path_rules.py")
    (workspace / "tests/test_path_rules.py").write_text("#" * 500_000)
    with pytest.raises(ValueError, match="not a regular file under"):
        tools.read_file("tests/test_path_rules.py")


def test_the_projects_own_pytest_never_collects_the_samples_or_the_tasks_tests():
    here = Path(__file__).resolve().parent.parent  # the project root

    def collected(*options):
        # The project's own test files are left out, so only what else pytest would find remains.
        command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                   "-o", "addopts=", f"--ignore-glob={here}/test_*.py", f"--ignore-glob={here}/tests/test_*.py", *options]
        run = subprocess.run(command, cwd=here, capture_output=True, text=True,
                             env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
        return [line.split()[-1] for line in run.stdout.splitlines() if ".py" in line]  # items or ERROR lines
    assert collected() == []
    # The control: without the project's norecursedirs, pytest would find them all (and fail
    # to import them, since they belong to other roots).
    found = collected("-o", "norecursedirs=.venv .*")
    assert any(node.startswith("sample_repo/") for node in found)
    assert {node.split("/")[1] for node in found if node.startswith("tasks/")} >= {"discount_percent", "refund_limit"}


# --- tasks: allowlists and schemas follow task.json -------------------------------------------

def test_a_tasks_schemas_name_its_files_and_ask_for_a_path_only_with_several_editable(tmp_path):
    single, several = load_task("discount_percent"), load_task("pagination_last_page")
    for task in (single, several):
        read, replace, _ = schemas_for(task)
        assert all(path in read["function"]["parameters"]["properties"]["path"]["description"]
                   for path in task.readable)
        asks_path = "path" in replace["function"]["parameters"]["properties"]
        assert asks_path == (len(task.editable) > 1)


def test_a_task_allows_reading_only_its_readable_files_and_editing_only_its_editable_ones(tmp_path):
    task = load_task("pagination_last_page")
    tools = RepoTools(fresh_copy(task, tmp_path), task=task)
    assert [tools.invoke("read_file", {"path": path})["path"] for path in task.readable] == list(task.readable)
    test_file = next(path for path in task.readable if path.startswith("tests/"))
    first_line = tools.read_file(test_file)["text"].splitlines()[0]
    with pytest.raises(ValueError, match="not allowed"):
        tools.invoke("replace_text", {"path": test_file, "old": first_line, "new": "x"})
    with pytest.raises(TypeError, match="missing: \\['path'\\]"):
        tools.invoke("replace_text", {"old": "x", "new": "y"})
    (edit, _) = solution_edits(task)
    assert tools.invoke("replace_text", edit) == {"path": edit["path"], "replaced": 1}


def test_read_file_refuses_a_self_referencing_symlink_with_a_clear_error(tools, workspace):
    (workspace / "path_rules.py").unlink()
    (workspace / "path_rules.py").symlink_to("path_rules.py")
    with pytest.raises(ValueError, match="cannot be opened"):
        tools.read_file("path_rules.py")
    with pytest.raises(ValueError, match="cannot be opened"):
        tools.replace_text(FIX_OLD, FIX_NEW)


def test_a_child_that_escapes_the_group_and_holds_the_output_pipe_does_not_hold_the_run(workspace):
    """Without the sandbox, tested code can start a child in a session of its own and hand it
    pytest's real output pipe; the run must still end on time (the child is the user's risk)."""
    marker = f"coding-loop-marker-{uuid.uuid4().hex}"
    write_probe(workspace, f"""
import stat
pipes = [fd for fd in range(3, 64) if os.path.exists(f"/proc/self/fd/{{fd}}") and stat.S_ISFIFO(os.fstat(fd).st_mode)]
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "{marker}"], start_new_session=True,
                 stdout=pipes[0])
""")
    started = time.monotonic()
    try:
        result = RepoTools(workspace, sandbox_mode="none", test_timeout=10).run_tests()
        assert result["exit_code"] == 0 and result["passed"] == 1, result["output"]
        assert time.monotonic() - started < 8  # a wide bound: far less than the child's 30 s
    finally:
        for pid in running_with(marker):
            os.kill(pid, 9)
