"""A search on a user's terminal: its progress as it runs, and a stop that takes effect at once.

Each test runs the real command line on a real terminal (a pty) against the loopback Ollama
server, which streams slowly or, as a server reading a long prompt does, says nothing at all.
Without the status line a search showed nothing for minutes; without closing every candidate's
stream a Ctrl-C waited for the server's next byte, and a closed terminal (SIGHUP) killed the
command, leaving its copies behind and writing nothing.
"""
import io
import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

from command_line.printer import Printer
from runs.recording_file import load
from command_line.progress import Progress
from testing.fake_ollama import Stall
from testing.scripted import done, text
from tests.terminal import Terminal
from tests.user_repos import make_project, tree_state

pytestmark = pytest.mark.real_pytest_runs

HERE = Path(__file__).resolve().parent.parent


def terminal(fake_ollama, tmp_path, *flags):
    """record_run.py searching two candidates on a terminal; its temporary folder is tmp_path/tmp."""
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "COLUMNS": "250", "PYTHONUNBUFFERED": "1"}
    argv = [str(HERE / "record_run.py"), "--host", fake_ollama.url, "--candidates", "2", "--max-turns", "1",
            "--output", str(tmp_path / "run.json"), *flags]
    return Terminal(argv, HERE, env)


def copies_left(tmp_path):
    return [p.name for p in (tmp_path / "tmp").iterdir()]  # the copies, and any test run's scratch


def test_a_search_shows_one_status_line_in_place_and_the_model_text_made_inert(fake_ollama, tmp_path):
    slow = [text("Looking \x1b]0;owned\x07\n"), Stall(1.5), text("at it\n"), Stall(1.5), done()]
    fake_ollama.play(slow, [text("Second\n"), done()])
    shell = terminal(fake_ollama, tmp_path, "--show-model")
    try:
        assert shell.exit_code(90) == 0
    finally:
        shell.close()
    out = bytes(shell.output)
    # The status, rewritten in place (carriage return, line cleared), names the candidate, its
    # turn, the tokens streamed so far and the time; then the next candidate's.
    assert re.search(rb"\r\x1b\[Ksearch: 0 of 2 ended, \d+s; candidate 1 of 2: turn 1, writing, 1 token, \ds", out)
    assert re.search(rb"\r\x1b\[Ksearch: 1 of 2 ended, \d+s; candidate 2 of 2: turn 1", out)
    assert b"--- candidate 1 (--show-model) ---" in out
    assert b"Looking \\x1b]0;owned\\x07" in out and b"\x1b]0;" not in out  # streamed, made inert
    assert b"wrote " in out and json.loads((tmp_path / "run.json").read_text())["search"]["candidates"] == 2


def silent_search(fake_ollama, tmp_path):
    """Two candidates on two slots, each sent to a server that says nothing for 40 s (a long
    prompt on a CPU): the terminal, once both requests are in."""
    fake_ollama.play([Stall(40), done()], [Stall(40), done()])
    shell = terminal(fake_ollama, tmp_path, "--parallel", "2")
    assert shell.wait_for(lambda out: len(fake_ollama.requests) == 2)
    time.sleep(0.3)  # both reads are waiting for the server
    return shell


@pytest.mark.parametrize("how", ["ctrl-c", "hang-up"])
def test_a_stop_during_a_search_takes_effect_at_once_keeps_what_ran_and_removes_the_copies(
        fake_ollama, tmp_path, how):
    shell = silent_search(fake_ollama, tmp_path)
    try:
        asked = time.monotonic()
        shell.press(b"\x03") if how == "ctrl-c" else shell.hang_up()  # one Ctrl-C; or the window closed
        code = shell.exit_code(10)
        took = time.monotonic() - asked
    finally:
        shell.close()
    assert code == 130 and took < 5, (code, took, bytes(shell.output)[-400:])  # not the 40 s the server takes
    kept = json.loads((tmp_path / "run.json").read_text())
    assert kept["interrupted"] is True and "verdict" not in kept
    assert [(c["index"], c["stop"]["reason"]) for c in kept["candidates"]] == [(1, "interrupted"), (2, "interrupted")]
    assert copies_left(tmp_path) == []
    if how == "ctrl-c":
        lines = [line for line in bytes(shell.output).decode().splitlines() if "interrupted" in line]
        assert len(lines) == 1 and "2 cut off" in lines[0] and "the copies were removed" in lines[0]


def test_piped_the_status_is_a_plain_line_at_most_every_so_often():
    now, out = [0.0], io.StringIO()
    progress = Progress(Printer(out), 2, clock=lambda: now[0], every=15)
    progress.event(1, {"type": "model_start", "turn": 1})
    for moment in (1.0, 2.0):
        now[0] = moment
        progress.event(1, {"type": "text_delta", "turn": 1, "text": "x"})
    lines = []
    for moment in (5, 14, 16, 20, 29, 31.5):
        now[0] = moment
        progress.tick()
        lines += [line for line in out.getvalue().splitlines() if line not in lines]
    assert lines == ["search: 0 of 2 ended, 16s; candidate 1 of 2: turn 1, writing, 2 tokens at 1.0/s, 16s",
                     "search: 0 of 2 ended, 31s; candidate 1 of 2: turn 1, writing, 2 tokens at 1.0/s, 31s"]
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()


def test_fix_stopped_by_one_ctrl_c_during_its_search_keeps_what_ran_and_applies_nothing(fake_ollama, tmp_path):
    repo = make_project(tmp_path / "calc")
    before = tree_state(repo)
    fake_ollama.play([Stall(40), done()], [Stall(40), done()])
    (tmp_path / "tmp").mkdir()
    shell = Terminal([str(HERE / "fix.py"), "--repo", str(repo), "--host", fake_ollama.url, "--candidates", "2",
                      "--parallel", "2", "--output", str(tmp_path / "out" / "run.json")], HERE,
                     {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "COLUMNS": "250"})
    try:
        assert shell.wait_for(lambda out: len(fake_ollama.requests) == 2)
        time.sleep(0.3)
        asked = time.monotonic()
        shell.press(b"\x03")
        code, took = shell.exit_code(10), time.monotonic() - asked
    finally:
        shell.close()
    assert code == 130 and took < 5, (code, took, bytes(shell.output)[-400:])
    kept = json.loads((tmp_path / "out" / "run.json").read_text())
    assert kept["interrupted"] is True and kept["repository"]["name"] == "calc" and len(kept["candidates"]) == 2
    assert copies_left(tmp_path) == [] and tree_state(repo) == before
    assert re.search(rb"interrupted: nothing was applied; the search so far \(0 candidate\(s\) ended, 2 cut off\) "
                     rb"kept in .*run.json; the copies were removed", bytes(shell.output))


def test_a_single_run_stopped_by_ctrl_c_keeps_its_turns_so_far(fake_ollama, tmp_path):
    fake_ollama.play([text("Reading"), Stall(40), done()])
    (tmp_path / "tmp").mkdir()
    shell = Terminal([str(HERE / "record_run.py"), "--host", fake_ollama.url, "--output", str(tmp_path / "run.json")],
                     HERE, {**os.environ, "TMPDIR": str(tmp_path / "tmp")})
    try:
        assert shell.wait_for(lambda out: b"Reading" in out)
        shell.press(b"\x03")
        assert shell.exit_code(10) == 130
    finally:
        shell.close()
    kept = json.loads((tmp_path / "run.json").read_text())
    assert kept["interrupted"] is True and kept["stop"]["reason"] == "interrupted"
    assert kept["turns"][0]["chunks"][0]["message"]["content"] == "Reading" and copies_left(tmp_path) == []
    assert b"interrupted: the run so far (1 turn(s)) kept in" in bytes(shell.output)
    with pytest.raises(ValueError, match="interrupted before its verdict: it is kept to be read, and cannot be replayed"):
        load(tmp_path / "run.json")  # replay.py says so in one line
