"""improve.py end to end, offline: the scripted small model climbs from the weak start, each change
cites its evidence, the held-out task never reaches the improver, the stop rules hold, the page
renders in a real browser, and a finished improvement replays."""
import copy
import json
import shutil

import pytest

import improve
from outer_loop import climb, prompt_rewrite
from tests.browser import CHROMIUM, chromium, needs_chromium
from tests.helpers import IMPROVE_HOLDOUT as HOLDOUT  # `climbed` (conftest.py) climbs with IMPROVE_FLAGS

ONE_TASK = ("--scripted", "--start", "weak", "--tasks", "path_rules", "--jobs", "1")


@pytest.fixture(scope="module")
def one_iteration(tmp_path_factory):
    """A finished improvement of one iteration on one task (stopped by --iterations 1): read it."""
    out = tmp_path_factory.mktemp("one") / "out"
    assert improve.main([*ONE_TASK, "--iterations", "1", "--out", str(out)]) == 0
    return out


def test_the_weak_start_fails_and_the_rules_climb_to_the_target(climbed):
    _, record = climbed
    rates = [entry["train"]["pass@1"] for entry in record["iterations"]]
    assert rates[0] == 0.0 and rates[-1] == 1.0 and record["stopped"] == "target"
    assert record["iterations"][0]["changes"] == []  # iteration 1 runs the starting configuration
    second = {c["field"]: c for c in record["iterations"][1]["changes"]}
    assert set(second) == {"offered_tools", "text_calls", "context"}
    assert second["text_calls"]["rationale"].startswith("2 of 2 failed attempts wrote tool calls as text")
    assert second["text_calls"]["evidence"] == ["discount_percent-1", "path_rules-1"]
    assert record["final"] == record["iterations"][-1]["settings"] and record["start"]["text_calls"] == "nudge"


def test_the_held_out_task_is_never_shown_to_the_improver(climbed):
    out, record = climbed
    for entry in record["iterations"]:
        assert sorted(p.name for p in (out / entry["folder"] / "attempts").iterdir()) == [
            "discount_percent-1.json", "path_rules-1.json"]
        assert not any(HOLDOUT in attempt_id for c in entry["changes"] for attempt_id in c["evidence"])
    assert record["holdout"]["tasks"] == [HOLDOUT]
    assert record["holdout"]["start"]["pass@1"] == 0.0 and record["holdout"]["final"]["pass@1"] == 1.0
    assert (out / "holdout-start/attempts/refund_limit-1.json").exists()


def test_a_finished_improvement_replays_and_a_doctored_one_does_not(climbed, one_iteration, tmp_path, capsys):
    # With the real tools and pytest: every attempt runs again and matches its recording. The
    # one-task improvement is enough for that (each attempt is replayed alike, whatever the climb).
    assert improve.main(["--replay", str(one_iteration)]) == 0
    assert "every iteration replayed as recorded" in capsys.readouterr().out
    # The climb, with iteration 2's decision claimed different: the rules disagree. A decision
    # is derived from the attempts' events, which a served replay (no pytest) rebuilds the same
    # way, so the finished climb and its doctored copy are served.
    out, record = climbed
    doctored = tmp_path / "doctored"
    shutil.copytree(out, doctored)
    record = copy.deepcopy(record)
    record["iterations"][1]["settings"]["verify_finish"] = 1
    (doctored / "improvement.json").write_text(json.dumps(record))
    assert improve.main(["--replay", str(out), "--served"]) == 0
    assert "every iteration replayed as recorded" in capsys.readouterr().out
    assert improve.main(["--replay", str(doctored), "--served"]) == 1
    assert "iteration 1: the improver now proposes" in capsys.readouterr().out


@needs_chromium
def test_the_report_shows_the_climb_in_a_real_browser(climbed, tmp_path):
    out, record = climbed
    assert CHROMIUM, "CI is set but chromium is not installed: apt-get install -y chromium"
    page = (out / "report.html").read_text()
    assert '<svg role="img"' in page and "<script" not in page.lower() and 'http-equiv="refresh"' not in page
    dom, png, console, _ = chromium(out / "report.html", tmp_path)
    assert "Content Security Policy" not in console, console[-2000:]
    assert "training pass@1 per iteration" in dom and "polyline" in dom
    assert dom.count('class="cell"') >= 2 * len(record["iterations"])
    assert "2 of 2 failed attempts wrote tool calls as text" in dom


def test_the_iterations_bound_and_stagnation_stop_the_loop(one_iteration, tmp_path, monkeypatch):
    record = json.loads((one_iteration / "improvement.json").read_text())
    assert record["stopped"] == "iterations" and len(record["iterations"]) == 1
    # An improver with nothing left to change ends the loop after the iteration it read.
    monkeypatch.setattr(climb.rules, "propose", lambda settings, attempts, tasks, *rules: (settings, []))
    assert improve.main([*ONE_TASK, "--out", str(tmp_path / "stuck")]) == 0
    record = json.loads((tmp_path / "stuck/improvement.json").read_text())
    assert record["stopped"] == "no_change" and len(record["iterations"]) == 1 and record["holdout"] is None


def test_the_model_improver_records_its_raw_answer_keeps_the_rules_and_is_never_asked_again(tmp_path, monkeypatch):
    """Stopped while iteration 2 is evaluated, the model's answer is already recorded; the resume
    and a run of the finished improvement never ask the model again."""
    flags, real_evaluate = [*ONE_TASK, "--improver", "model", "--iterations", "2", "--out", str(tmp_path / "m")], \
        climb.evaluate

    def stopped_in_iteration_2(evaluation, *args, **kwargs):
        if evaluation.out.name == "iteration-2":
            raise KeyboardInterrupt
        return real_evaluate(evaluation, *args, **kwargs)
    monkeypatch.setattr(climb, "evaluate", stopped_in_iteration_2)
    assert improve.main(flags) == 130
    second = json.loads((tmp_path / "m/improvement.json").read_text())["iterations"][1]
    assert second["prompt_answer"] == {"raw": improve.SCRIPTED_PROMPT, "accepted": True, "why": None}
    assert second["train"] is None  # decided, not yet evaluated
    monkeypatch.setattr(climb, "evaluate", real_evaluate)
    asked = []
    monkeypatch.setattr(improve, "_scripted_prompt_chat", lambda: lambda *request: asked.append(request) or iter([]))
    for _ in range(2):  # the resume, then the same command on the finished improvement
        assert improve.main(flags) == 0
    assert asked == []
    record = json.loads((tmp_path / "m/improvement.json").read_text())
    assert record["iterations"][1]["prompt_answer"] == second["prompt_answer"] and record["stopped"] == "target"
    system = [c for c in record["iterations"][1]["changes"] if c["field"] == "system"][0]
    assert system["to"].startswith(improve.SCRIPTED_PROMPT) and system["to"].endswith(
        "\n".join(prompt_rewrite.NON_NEGOTIABLE))


def test_bad_flags_are_one_line(capsys):
    for flags, words in [(["--holdout", "path_rules", "--tasks", "path_rules"], "nothing is left to train on"),
                         (["--tasks", "nope"], "unknown task nope"), (["--target", "2"], "--target is a pass rate")]:
        with pytest.raises(SystemExit) as stop:
            improve.main(["--scripted", *flags])
        assert stop.value.code == 2 and words in capsys.readouterr().err
