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


def test_the_readme_has_a_served_replay_of_every_shipped_recording_and_says_when_each_was_measured():
    """A figure in README.md is the output of a command on the code it describes: bench.py's
    blocks each say their commit and date, and one of them replayed as many recordings as ship
    now (it said 20 when 21 shipped). A new recording: run `python bench.py` again, paste the line."""
    import re
    paragraphs = re.split(r"\n\s*\n", (HERE / "README.md").read_text(encoding="utf-8"))
    measured = [(before, block) for before, block in zip(paragraphs, paragraphs[1:])
                if block.startswith("    ") and "served replay of all" in block]
    assert measured, "README.md shows no bench.py output"
    for before, block in measured:
        assert re.search(r"`[0-9a-f]{7,40}`", before) and re.search(r"\d{4}-\d{2}-\d{2}", before), \
            f"say the commit and date these were measured at: {block.strip()[:80]}"
    counts = {int(n) for _, block in measured for n in re.findall(r"served replay of all (\d+) recordings", block)}
    assert len(list(RECORDINGS.glob("*.json"))) in counts, "run `python bench.py` and show its served replay line"
