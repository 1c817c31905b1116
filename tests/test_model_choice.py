"""The model a command line chose, as one typed value (models/choice.py): built and checked once
when the flags are parsed, sent to the worker processes whole, and `--scripted` meaning the same
thing on every command line."""
import argparse
import json
import pickle

import pytest

import evaluate
import fix
import improve
import local_model
import openai_model
import record_run
from agent_loop import LoopSettings
from evaluation.job import Job, run_job
from fixing.flags import parse_args as fix_flags
from models.choice import CHECKS, OPTION_NAMES, ModelChoice
from command_line.shared_flags import add_model_flags
from runs.recording_file import load
from testing.fake_openai import text as sse_text
from testing.scripted import done, text
from tests.network import closed_port
from tests.user_repos import make_project
from workspace.task_catalog import load_task


def test_the_flags_become_one_typed_model_and_are_gone_from_the_namespace():
    args = record_run.parse_args(["--host", "http://a:1", "--host", "http://b:2", "--temperature", "0.5",
                                  "--seed", "3", "--parallel", "2", "--no-think", "--output", "/tmp/x.json"])
    assert args.model == ModelChoice(api="ollama", urls=("http://a:1", "http://b:2"), temperature=0.5, seed=3,
                                     parallel=2, think=False)
    assert not any(hasattr(args, flag) for flag in ("host", "seed", "temperature", "max_turns", "scripted"))
    assert args.model.options(seed=9) == {"temperature": 0.5, "seed": 9}
    assert pickle.loads(pickle.dumps(args.model)) == args.model  # it crosses to evaluate.py's workers


def test_each_option_an_adapter_takes_is_one_field_of_the_choice_one_flag_and_one_check():
    """The adapters declare the options they take; the choice, the flags and their checks follow."""
    assert set(OPTION_NAMES) == set(local_model.OPTIONS) | set(openai_model.OPTIONS)
    assert set(OPTION_NAMES) <= set(CHECKS)
    parser = argparse.ArgumentParser()
    add_model_flags(parser)
    assert set(OPTION_NAMES) <= set(vars(parser.parse_args([])))
    assert local_model.OPTIONS["seed"] == openai_model.OPTIONS["seed"][1]  # attempt/adapters.seed_for counts from it


def test_no_server_named_is_ollamas_default_one_resolved_once(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:1234")
    assert record_run.parse_args(["--output", "/tmp/x.json"]).model.urls == ("http://127.0.0.1:1234",)


@pytest.mark.parametrize("fields, words", [
    ({"api": "openai", "urls": ("http://a/v1",)}, "--api openai needs --base-url URL and --model NAME"),
    ({"urls": ("http://a", "http://a")}, "a server is named twice"),
    ({"urls": ()}, "a model needs a server"),
    ({"urls": ("http://a",), "seed": True}, "seed must be a whole number"),
    ({"urls": ("http://a",), "parallel": 0}, "parallel must be a positive whole number"),
    ({"urls": ("http://a",), "about": "a repair"}, "--about says what a scripted model plays"),
    ({"api": "scripted", "name": "attempts"}, "a built-in scripted model is one of attempts, small-model"),
])
def test_a_choice_that_no_run_can_use_is_refused_when_it_is_made(fields, words):
    with pytest.raises(ValueError, match=words):
        ModelChoice(**fields)


def test_the_identity_of_an_evaluation_keeps_its_recorded_shape():
    """evaluation.json compares it on resume: an evaluation made before the choice was typed resumes."""
    assert ModelChoice(api="scripted", name="attempts", scripted=True).identity() == {"api": "scripted"}
    assert ModelChoice(urls=("http://a",), seed=3).identity(all_candidates=True) == {
        "api": "ollama", "model": None, "think": True, "all_candidates": True,
        "options": {"temperature": None, "seed": 3, "num_ctx": None, "num_predict": None}}


def test_scripted_needs_the_server_that_plays_it_where_none_is_built_in(capsys):
    for main, flags in ((record_run.main, ["--output", "/tmp/x.json"]), (fix.main, ["--repo", "."])):
        with pytest.raises(SystemExit) as stop:
            main(["--scripted", *flags])
        assert stop.value.code == 2 and "--scripted needs the server that plays the script" in capsys.readouterr().err
    assert evaluate.parse_args(["--scripted"]).model == ModelChoice(api="scripted", name="attempts", scripted=True)
    assert improve.parse_args(["--scripted"]).model.name == "small-model"
    assert fix_flags(["--repo", ".", "--scripted", "--host", "http://a:1", "--about", "a repair"]).model.source == \
        "scripted"


def test_scripted_at_a_fake_server_labels_an_evaluation_as_it_labels_a_recording(fake_openai, tmp_path):
    """evaluate.py --scripted --about TEXT --api openai --base-url URL: the choice its workers get
    labels each attempt (run here in this process: the worker pool is not what this is about)."""
    choice = evaluate.parse_args(["--scripted", "--about", "claims a fix", "--api", "openai", "--base-url",
                                  fake_openai.url, "--model", "qwen2.5-coder-1.5b", "--tasks", "path_rules"]).model
    fake_openai.play(sse_text("I fixed it."))
    job = Job(load_task("path_rules"), 1, LoopSettings(), choice, {"name": "qwen2.5-coder-1.5b", "digest": None},
              None, str(tmp_path / "path_rules-1.json"), str(tmp_path))
    attempt = load(run_job(job)["path"])
    assert (attempt["source"], attempt["about"], attempt["server"]) == (
        "scripted", "claims a fix", {"api": "openai", "url": fake_openai.url})
    assert choice.identity()["scripted"] is True  # an evaluation folder keeps it apart from a real model's


def test_a_search_reaches_ollamas_default_server_when_no_server_is_named(fake_ollama, tmp_path, monkeypatch):
    """No --host: the candidates go to $OLLAMA_HOST, as a single run does (they were sent nowhere,
    and the run ended 'every model server failed')."""
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.url)
    fake_ollama.play([text("No idea."), done()], [text("Still none."), done()])
    output = tmp_path / "run.json"
    assert record_run.main(["--output", str(output), "--candidates", "2", "--max-turns", "1"]) == 0
    assert [c["server"] for c in load(output)["candidates"]] == [fake_ollama.url] * 2


def test_fix_refuses_a_settings_file_it_cannot_use_in_one_line_before_any_work(tmp_path, capsys):
    """It was a traceback, after the project's tests had run."""
    repo = make_project(tmp_path / "calc")
    assert fix.main(["--repo", str(repo), "--settings", "no-such-settings", "--host",
                     f"http://127.0.0.1:{closed_port()}", "--output", str(tmp_path / "run.json")]) == 1
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1
    assert printed.err.startswith("error: --settings no-such-settings: no such configuration")


def test_a_default_fix_search_sends_every_candidate_the_temperature_its_configuration_was_measured_with(
        fake_openai, tmp_path, capsys):
    # settings/small-model-explain.json (fix.py's default) was measured at 0.7: sent, unless --temperature says otherwise.
    fake_openai.play(*[sse_text("I cannot tell.")] * 8)
    code = fix.main(["--repo", str(make_project(tmp_path / "calc")), "--api", "openai", "--base-url", fake_openai.url,
                     "--model", "qwen2.5-coder-1.5b", "--output", str(tmp_path / "run.json"), "--max-turns", "1"])
    assert code == fix.NOT_APPLIED  # eight candidates, seeds 7 to 14, each at the preset's temperature
    assert sorted((sent["temperature"], sent["seed"]) for sent in fake_openai.requests) == [(0.7, seed) for seed in range(7, 15)]
    assert "temperature 0" not in capsys.readouterr().out


def test_a_search_at_temperature_0_says_so_in_one_line(fake_openai, tmp_path, capsys):
    fake_openai.play(*[sse_text("I cannot tell.")] * 8)
    fix.main(["--repo", str(make_project(tmp_path / "calc")), "--api", "openai", "--base-url", fake_openai.url,
              "--model", "qwen2.5-coder-1.5b", "--output", str(tmp_path / "run.json"), "--max-turns", "1",
              "--temperature", "0"])
    assert {sent["temperature"] for sent in fake_openai.requests} == {0}
    notes = [line for line in capsys.readouterr().out.splitlines() if "temperature 0" in line]
    assert notes == ["note: all 8 candidates are sampled at temperature 0, so a server that decodes greedily answers "
                     "them alike whatever their seeds; the searches were measured at --temperature 0.7"]


@pytest.mark.parametrize("options, words", [
    ({"temperature": -1}, "option temperature must be a number of at least 0"),
    ({"top_k": 5}, "unknown model option 'top_k'"),
    ([0.7], '"options" holds a JSON object'),
])
def test_a_settings_files_options_are_checked_as_the_flags_are(tmp_path, options, words):
    settings = tmp_path / "mine.json"
    settings.write_text(json.dumps({"about": "mine", "options": options}))
    with pytest.raises(ValueError, match=words):
        record_run.parse_args(["--settings", str(settings), "--output", "/tmp/x.json"])
    settings.write_text(json.dumps({"options": {"temperature": 0.2, "seed": 4}}))
    assert record_run.parse_args(["--settings", str(settings), "--seed", "5", "--output", "/tmp/x.json"]).model.options() \
        == {"temperature": 0.2, "seed": 5}
