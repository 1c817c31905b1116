"""The allowlisted tools on real copies of the sample: paths, edits, and the pytest run."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIX_NEW, FIX_OLD, write_probe
from pytest_run import OUTPUT_CHARS
from repo_tools import SCHEMAS, RepoTools



def heartbeat_stopped(path, wait=0.4):
    """True when a file a background process keeps rewriting has stopped changing."""
    time.sleep(wait)
    before = path.read_text() if path.exists() else None
    time.sleep(wait)
    return (path.read_text() if path.exists() else None) == before


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

def test_replace_text_edits_exactly_once_and_keeps_the_file_mode(tools, workspace):
    target = workspace / "path_rules.py"
    os.chmod(target, 0o640)
    assert tools.replace_text(FIX_OLD, FIX_NEW) == {"path": "path_rules.py", "replaced": 1}
    assert FIX_NEW in target.read_text() and FIX_OLD not in target.read_text()
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in workspace.iterdir()) == ["path_rules.py", "tests"]  # no temp file left


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
    assert "FAILED tests/test_path_rules.py::test_accepts_windows_separators" in result["output"]
    assert result["output"].rstrip().endswith("1 failed, 3 passed")  # durations removed
    assert not list(workspace.rglob("__pycache__")) and not (workspace / ".pytest_cache").exists()


def test_run_tests_passes_after_the_fix(tools):
    tools.replace_text(FIX_OLD, FIX_NEW)
    result = tools.run_tests()
    assert (result["exit_code"], result["passed"], result["failed"]) == (0, 4, 0)


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
import json
open("env.json", "w").write(json.dumps(dict(os.environ)))
""")
    result = RepoTools(workspace).run_tests()
    assert result["exit_code"] == 0, result["output"]
    seen = (workspace / "env.json").read_text()
    assert "leaked-secret-value" not in seen and "PYTHONPATH" not in seen
    assert '"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"' in seen


def test_run_tests_keeps_only_the_last_output_characters(workspace):
    write_probe(workspace, """
print("x" * 100_000)
assert False, "the end of the output"
""")
    result = RepoTools(workspace).run_tests()
    assert len(result["output"]) == OUTPUT_CHARS
    assert result["output"].rstrip().endswith("1 failed") and result["failed"] == 1


def test_run_tests_timeout_kills_the_whole_tree(workspace):
    write_probe(workspace, """
code = "import time\\nwhile True:\\n    open('beat', 'w').write(str(time.time())); time.sleep(0.05)"
subprocess.Popen([sys.executable, "-c", code])
while True:
    pass
""")
    # Long enough for a loaded machine to start pytest and the grandchild first.
    result = RepoTools(workspace, test_timeout=2.5).run_tests()
    assert result["timed_out"] is True and result["exit_code"] != 0
    assert (workspace / "beat").exists(), "the grandchild never started"
    assert heartbeat_stopped(workspace / "beat")


def test_children_left_behind_by_a_passing_run_are_killed(workspace):
    write_probe(workspace, """
code = "import time\\nwhile True:\\n    open('beat', 'w').write(str(time.time())); time.sleep(0.05)"
subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.3)
""")
    result = RepoTools(workspace).run_tests()
    assert result["exit_code"] == 0 and result["timed_out"] is False
    assert (workspace / "beat").exists(), "the grandchild never started"
    assert heartbeat_stopped(workspace / "beat")


def test_read_file_refuses_a_fifo_or_a_huge_file_left_by_tested_code(tools, workspace):
    os.unlink(workspace / "path_rules.py")
    os.mkfifo(workspace / "path_rules.py")  # reading it would block forever
    with pytest.raises(ValueError, match="not a regular file"):
        tools.read_file("path_rules.py")
    (workspace / "tests/test_path_rules.py").write_text("#" * 200_000)
    with pytest.raises(ValueError, match="not a regular file under"):
        tools.read_file("tests/test_path_rules.py")


def test_the_projects_own_pytest_never_collects_the_samples_tests():
    here = Path(__file__).parent
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                               cwd=here, capture_output=True, text=True,
                               env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}).stdout
    node_ids = [line for line in collected.splitlines() if "::" in line]
    assert any(node.startswith("test_loop.py::") for node in node_ids)
    assert not [node for node in node_ids if node.startswith("sample_repo") or "windows_separators" in node]
