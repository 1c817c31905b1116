"""Entry points that do heavy or destructive work must only do it when asked; every command
README.md shows is one they take."""
import re
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
    from tests.network import closed_port
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


def test_the_measurements_have_a_served_replay_of_every_shipped_recording_and_say_when_each_was_measured():
    """A figure in measurements/README.md (where bench.py's figures live, beside the others) is
    the output of a command on the code it describes: bench.py's blocks each say their commit and
    date, and one of them replayed as many recordings as ship now (it said 20 when 21 shipped). A
    new recording: run `python bench.py` again, paste the line there."""
    import re
    paragraphs = re.split(r"\n\s*\n", (HERE / "measurements" / "README.md").read_text(encoding="utf-8"))
    measured = [(before, block) for before, block in zip(paragraphs, paragraphs[1:])
                if block.startswith("    ") and "served replay of all" in block]
    assert measured, "measurements/README.md shows no bench.py output"
    for before, block in measured:
        assert re.search(r"`[0-9a-f]{7,40}`", before) and re.search(r"\d{4}-\d{2}-\d{2}", before), \
            f"say the commit and date these were measured at: {block.strip()[:80]}"
    counts = {int(n) for _, block in measured for n in re.findall(r"served replay of all (\d+) recordings", block)}
    assert len(list(RECORDINGS.glob("*.json"))) in counts, "run `python bench.py` and show its served replay line"


# --- every command README.md shows runs ------------------------------------------------------------

README_COMMAND = re.compile(r"(?:^|\s|&&\s*)(?:\.venv/bin/)?python3?\s+([\w./-]+\.py)((?:\s+[^\s&#]+)*)")


def readme_commands(text):
    """{entry point: its flags} of every `python X.py ...` or `.venv/bin/python X.py ...` in
    README.md's code (fenced, or indented four spaces), a line ending in a backslash joined to
    the next."""
    code, in_fence = [], False
    for line in text.splitlines():
        fence = line.strip().startswith("```")
        in_fence = in_fence != fence
        if fence or in_fence or line.startswith("    "):
            code.append(line)
    joined = re.sub(r"\\\n\s*", " ", "\n".join(code))
    found = {}
    for line in joined.splitlines():
        for match in README_COMMAND.finditer(line):
            script, rest = match.groups()
            found.setdefault(script, set()).update(re.findall(r"(?<!\S)(--[\w-]+)", rest))
    return found


def test_the_readme_command_finder_finds_commands_and_their_flags():
    text = ("Prose: python nowhere.py is not code.\n\n    .venv/bin/python fix.py --repo R \\\n"
            "        --yes  # a comment\n\n```sh\npython3 -m venv .venv && .venv/bin/python replay.py --served\n```\n")
    assert readme_commands(text) == {"fix.py": {"--repo", "--yes"}, "replay.py": {"--served"}}


def test_every_entry_point_the_readme_shows_answers_help_and_takes_its_flags():
    """Each command README.md's code shows is runnable: its script exists, `X.py --help` exits 0
    (one process per entry point, all at once), and every flag the README gives it is one its
    --help names."""
    shown = readme_commands((HERE / "README.md").read_text(encoding="utf-8"))
    assert {"replay.py", "evaluate.py", "improve.py", "fix.py", "record_run.py"} <= set(shown), shown
    missing = [script for script in shown if not (HERE / script).is_file()]
    assert missing == [], f"README.md shows commands of scripts that do not exist: {missing}"
    started = {script: subprocess.Popen([sys.executable, "-B", script, "--help"], cwd=HERE, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE) for script in shown}
    problems = []
    for script, process in started.items():
        out, err = process.communicate(timeout=60)
        if process.returncode != 0:
            problems.append(f"{script} --help exited {process.returncode}: {err.strip()[-300:]}")
            continue
        unknown = sorted(flag for flag in shown[script] if not re.search(re.escape(flag) + r"\b", out))
        if unknown:
            problems.append(f"README.md gives {script} flags its --help does not name: {unknown}")
    assert problems == []
