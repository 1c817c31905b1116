"""A Ctrl-C is never lost on its way (command_line/ctrl_c.py).

Python drops the KeyboardInterrupt a signal raises while one of its own hooks runs (logging's
lock release after every fork); replay.py once exited 0 after a Ctrl-C that way. The first test
makes that drop happen on purpose and shows the remembered press still stops the command, and
that nothing of the drop reaches the terminal (Python would print a traceback); the others show each long loop (the recordings of a replay, the events of a run, evaluate's pool)
looks at a remembered press before its next piece of work.
"""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_loop import LoopSettings
from evaluation.workers import run_in_workers
from replay import main as replay_main
from repo_tools import RepoTools
from command_line import ctrl_c
from runs.recording import record_loop
from testing.scripted import ScriptedChat, done, text
from tests.terminal import interruptible
from workspace.task_catalog import fresh_copy, load_task

pytestmark = pytest.mark.real_pytest_runs  # a Ctrl-C lands during a real run's fork

HERE = Path(__file__).resolve().parent.parent

# A fork whose after-fork hook is interrupted by Ctrl-C, as logging's is when the press lands
# mid-fork (Python runs its fork hooks around a subprocess with a `preexec_fn`, as
# workspace/pytest_run.py starts every test run, to set its limits). The hook loops a little so the handler runs inside it, where Python drops its exception.
DROPPED_DURING_A_FORK = textwrap.dedent("""
    import os, signal, subprocess, sys
    sys.path.insert(0, {here!r})
    from command_line import ctrl_c
    if {remember}:
        ctrl_c.remember()
    def hook():
        signal.raise_signal(signal.SIGINT)
        for _ in range(100):
            pass
    os.register_at_fork(after_in_parent=hook)
    try:
        subprocess.run(["true"], preexec_fn=lambda: None)  # as every test run is (its limits)
        print("went on after the fork")
        ctrl_c.check()
        print("went on after the check")
    except KeyboardInterrupt:
        print("interrupted")
""")


@pytest.fixture(autouse=True)
def no_press_left_over():
    yield
    ctrl_c.pressed.clear()


@pytest.mark.parametrize("remember, last_line", [(False, "went on after the check"), (True, "interrupted")])
def test_a_ctrl_c_python_drops_during_a_fork_is_still_obeyed_once_remembered_and_never_printed(remember, last_line):
    script = DROPPED_DURING_A_FORK.format(here=str(HERE), remember=remember)
    with interruptible():  # the script takes Ctrl-C even when the suite runs with it ignored (nohup)
        ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert ran.stdout.splitlines() == ["went on after the fork", last_line]  # Python dropped it
    # Unremembered, Python prints what it dropped, a traceback; remembered, nothing reaches the terminal.
    assert ("Exception ignored" in ran.stderr and "Traceback" in ran.stderr) == (not remember)
    assert ran.stderr == "" or not remember


def test_what_python_cannot_raise_is_still_printed_unless_it_is_a_remembered_press(capsys):
    class Noisy:
        def __del__(self):
            raise ValueError("a destructor's own error")
    previous = sys.unraisablehook
    try:
        sys.unraisablehook = ctrl_c.quiet_when_remembered
        Noisy()  # dropped at once: its error is not a press, so it is printed as Python prints it
        ctrl_c.pressed.set()
        ctrl_c.quiet_when_remembered(type("Unraisable", (), {"exc_value": KeyboardInterrupt()})())
    finally:
        sys.unraisablehook = previous
    err = capsys.readouterr().err
    assert "a destructor's own error" in err and "KeyboardInterrupt" not in err


def test_a_remembered_ctrl_c_stops_a_run_at_its_next_event_and_closes_the_stream(tmp_path):
    chat = ScriptedChat([text("Let me look"), lambda: ctrl_c.pressed.set(), text(" at it"), done()])
    tools = RepoTools(fresh_copy(load_task("path_rules"), tmp_path / "copy"), task=load_task("path_rules"))
    with pytest.raises(KeyboardInterrupt):
        record_loop(chat, tools, LoopSettings(max_turns=2), "fix it", {"exit_code": 1, "output": ""})
    assert chat.closed_streams == 1


def test_a_remembered_ctrl_c_stops_a_replay_before_its_next_recording(capsys):
    ctrl_c.pressed.set()
    assert replay_main(["--served", str(HERE / "recordings" / "fix_in_one_edit.json")]) == 130
    out, err = capsys.readouterr()
    assert "===" not in out and err.strip() == "interrupted"


def test_a_remembered_ctrl_c_stops_evaluates_pool_before_it_hands_out_more():
    ctrl_c.pressed.set()
    finished = []
    with pytest.raises(KeyboardInterrupt):
        run_in_workers(1, abs, [-1, -2], lambda *done: finished.append(done))
    assert finished == []
