"""Entry points that do heavy or destructive work must only do it when asked."""
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent.parent  # the project root
RECORDINGS = HERE / "recordings"


def run(*command):
    return subprocess.run([sys.executable, "-B", *command], cwd=HERE, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("command", [["-m", "testing.make_recordings", "--help"], ["-m", "testing.make_recordings"]])
def test_make_recordings_writes_nothing_unless_asked(command):
    before = {path.name: path.stat().st_mtime_ns for path in RECORDINGS.glob("*.json")}
    finished = run(*command)
    assert finished.returncode == 0, finished.stderr
    assert {path.name: path.stat().st_mtime_ns for path in RECORDINGS.glob("*.json")} == before
    assert "--write" in finished.stdout


def test_bench_help_only_prints_its_usage():
    finished = run("bench.py", "--help")
    assert finished.returncode == 0 and finished.stdout.startswith("usage: bench.py")
    assert "assembly" not in finished.stdout  # no benchmark ran


def test_bench_refuses_an_unknown_flag_in_one_line():
    finished = run("bench.py", "--fast")
    assert finished.returncode == 2 and finished.stderr.count("\n") == 1 and "--fast" in finished.stderr


def test_bench_says_in_one_line_that_a_server_is_not_there(tmp_path):
    from tests.processes import closed_port
    finished = run("bench.py", "--server", f"http://127.0.0.1:{closed_port()}/v1")
    assert finished.returncode == 1 and finished.stderr.count("\n") == 1, finished.stderr
    assert finished.stderr.startswith("error: no server answers at http://127.0.0.1:") and "--server" in finished.stderr
    assert "assembly" not in finished.stdout  # nothing else ran before it said so


def test_bench_says_in_one_line_that_a_server_sends_no_token_counts(httpserver):
    reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "def parse(): ..."}}]}
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_json(reply)  # no "usage"
    finished = run("bench.py", "--server", httpserver.url_for("/v1"))
    assert finished.returncode == 1 and finished.stderr.count("\n") == 1, finished.stderr
    assert "sent no count of generated tokens (usage.completion_tokens)" in finished.stderr
