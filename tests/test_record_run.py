"""record_run.py against the loopback server: progress, the recording, and clear refusals."""
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

import record_run
from runs.recording import sample_hashes
from runs.recording_file import FORMAT, load
from testing.fake_ollama import Stall
from testing.scripted import call, done, text, thinking
from tests.helpers import FIX
from tests.network import closed_port, silent_server

HERE = Path(__file__).resolve().parent.parent  # the project root


def repair_script():
    return ([thinking("Look first."), text("Reading the code."), done(tool_calls=[call("read_file", path="path_rules.py")])],
            [done(tool_calls=[FIX])],
            [done(tool_calls=[call("run_tests")])],
            [text("Fixed: backslashes are normalised."), done()])


def test_a_run_is_printed_as_it_goes_and_recorded(fake_ollama, tmp_path, capsys):
    fake_ollama.play(*repair_script())
    output = tmp_path / "out" / "run.json"
    code = record_run.main(["--host", fake_ollama.url, "--output", str(output), "--scripted", "--about", "a test repair"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "starting tests: exit_code 1, 3 passed, 1 failed" in printed
    assert "Reading the code." in printed and "> read_file(path='path_rules.py')" in printed
    assert "< run_tests: exit_code 0, 4 passed, 0 failed" in printed
    assert "stopped: assistant_finished after turn 4" in printed and "verdict: repaired" in printed
    rec = json.loads(output.read_text())
    assert (rec["format"], rec["source"], rec["about"]) == (FORMAT, "scripted", "a test repair")
    assert rec["model"] == {"name": "gemma4:e2b", "digest": "sha256:" + "0" * 64}
    assert rec["sample"] == sample_hashes() and rec["tests_unchanged"] is True
    assert (rec["start_tests"]["exit_code"], rec["final_tests"]["exit_code"]) == (1, 0)
    # The recording keeps the messages as the loop sent them; the SDK drops empty fields on the wire.
    as_sent = [[{k: v for k, v in m.items() if v} for m in t["request"]["messages"]] for t in rec["turns"]]
    assert as_sent == [r["messages"] for r in fake_ollama.requests]
    assert rec["turns"][0]["chunks"][1]["message"]["content"] == "Reading the code."
    assert rec["settings"]["max_turns"] == 8 and rec["settings"]["options"]["seed"] == 7
    # What the adapter says it sent (LocalModel.recorded), in the shape older recordings have.
    assert (rec["settings"]["think"], rec["settings"]["keep_alive"]) == (True, "10m")
    assert rec["settings"]["options"] == fake_ollama.requests[0]["options"]
    assert len(rec["timings"]["model_s"]) == 4 and len(rec["timings"]["tool_s"]) == 3
    assert rec["stop"] == rec["events"][-1] == {"type": "stopped", "turn": 4, "reason": "assistant_finished"}
    assert [p.name for p in output.parent.iterdir()] == ["run.json"]  # no temp file left behind


def run_cli(*args):
    return subprocess.run([sys.executable, str(HERE / "record_run.py"), *args], capture_output=True, text=True, cwd=HERE)


def test_server_down_is_one_line_and_nothing_is_written(tmp_path):
    output = tmp_path / "run.json"
    finished = run_cli("--host", f"http://127.0.0.1:{closed_port()}", "--output", str(output))
    assert finished.returncode == 1 and finished.stdout == ""
    assert finished.stderr.count("\n") == 1 and "ollama serve" in finished.stderr
    assert not output.exists()


def test_a_model_that_is_not_pulled_says_how_to_pull_it(fake_ollama, tmp_path, capsys):
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--model", "qwen3:8b", "--output", str(output)]) == 1
    assert "error: model 'qwen3:8b' is not pulled" in capsys.readouterr().err
    assert not output.exists() and fake_ollama.requests == []


@pytest.mark.parametrize("flags", [["--max-turns", "0"], ["--max-turns", "two"], ["--deadline", "-1"], ["--turbo"]])
def test_bad_flags_are_refused_before_anything_runs(flags, capsys):
    with pytest.raises(SystemExit) as exit_:
        record_run.main(flags)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "--help" in err


def test_require_sandbox_refuses_where_bubblewrap_is_missing(fake_ollama, without_bubblewrap, tmp_path, capsys):
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--output", str(output), "--require-sandbox"]) == 1
    err = capsys.readouterr().err
    assert "sandbox is required" in err and err.count("\n") == 1
    assert not output.exists() and fake_ollama.requests == []


def test_a_missing_sandbox_is_reported_not_hidden(fake_ollama, without_bubblewrap, tmp_path, capsys):
    fake_ollama.play([done(tool_calls=[call("run_tests")])], [text("One test fails."), done()])
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--output", str(output)]) == 0
    printed = capsys.readouterr()
    assert "warning: bubblewrap is not installed" in printed.err
    assert "[sandbox: none]" in printed.out
    assert json.loads(output.read_text())["sandbox"] == "none"


def test_a_deadline_stops_a_stalled_live_stream(fake_ollama, tmp_path, capsys):
    fake_ollama.play([text("Thinking"), Stall(4), text(" more"), done()])
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--output", str(output), "--deadline", "0.6"]) == 0
    rec = json.loads(output.read_text())
    assert rec["stop"] == {"type": "stopped", "turn": 1, "reason": "deadline"}
    assert rec["settings"]["deadline"] == 0.6 and "stopped: deadline" in capsys.readouterr().out


def test_an_unwritable_output_is_refused_before_the_server_is_asked(fake_ollama, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert record_run.main(["--host", fake_ollama.url, "--output", str(blocker / "run.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: cannot write to ") and "--output" in err and err.count("\n") == 1
    assert fake_ollama.requests == []


def test_the_default_output_never_overwrites_an_earlier_recording(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = record_run.parse_args([]).output
    assert re.fullmatch(r"recordings/live-\d{8}-\d{6}\.json", first)
    (tmp_path / "recordings").mkdir()
    (tmp_path / first).write_text("{}")
    second = record_run.parse_args([]).output
    assert second != first and not (tmp_path / second).exists()


def folder_gone(folder):
    """A step between two chunks of a live turn: the output folder goes, and a file takes its
    place (so it cannot be made again, even by root)."""
    def step():
        shutil.rmtree(folder)
        folder.write_text("no longer a folder")
    return step


def test_a_run_whose_output_folder_goes_mid_run_is_kept_under_a_fresh_name(fake_ollama, tmp_path, capsys,
                                                                            monkeypatch):
    spare = tmp_path / "tmp"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))  # what TMPDIR says
    (spare / "run.json").write_text("someone else's file")
    fake_ollama.play([text("Done"), folder_gone(tmp_path / "out"), text("."), done()])
    assert record_run.main(["--host", fake_ollama.url, "--output", str(tmp_path / "out" / "run.json")]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    kept = [path for path in spare.iterdir() if path.name != "run.json"]
    assert (spare / "run.json").read_text() == "someone else's file"  # never overwritten
    assert len(kept) == 1 and load(kept[0])["stop"]["reason"] == "assistant_finished"
    assert len(err) == 1 and err[0].startswith(f"warning: cannot write {tmp_path / 'out' / 'run.json'} (")
    assert err[0].endswith(f"the run is saved in {kept[0]} instead")


def test_a_live_run_with_a_lone_surrogate_is_printed_and_recorded_with_its_verdict(fake_ollama, tmp_path, capsys):
    fake_ollama.play([text("All tests pass \ud800 now."), done()])
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--output", str(output), "--max-turns", "2"]) == 0
    printed = capsys.readouterr().out
    assert "All tests pass \\ud800 now." in printed and "verdict: not repaired" in printed
    rec = load(output)
    assert rec["events"][1]["text"] == "All tests pass \ud800 now."
    assert rec["source"] == "live" and "about" not in rec  # without --scripted, whatever the verdict
    assert rec["verdict"] == "not repaired" and rec["final_tests"]["exit_code"] == 1


def test_server_error_text_is_printed_with_control_characters_neutralised(fake_ollama, tmp_path, capsys):
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--model", "evil\x1b[2J:latest", "--output", str(output)]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[2J" in err and err.count("\n") == 1


def test_the_policies_and_options_are_flags_and_are_recorded_as_sent(fake_ollama, tmp_path):
    fake_ollama.play([text('```tool_code\nread_file("path_rules.py")\n```'), done()])
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--output", str(output), "--text-calls", "run", "--max-turns", "1",
                            "--verify-finish", "2", "--temperature", "0.7", "--seed", "3", "--num-ctx", "4096"]) == 0
    rec = load(output)
    assert rec["settings"]["text_calls"] == "run" and rec["settings"]["verify_finish"] == 2
    assert rec["settings"]["options"] == {"temperature": 0.7, "seed": 3, "num_ctx": 4096, "num_predict": 2048}
    assert fake_ollama.requests[0]["options"] == rec["settings"]["options"]
    assert rec["server"] == {"api": "ollama", "url": fake_ollama.url}
    assert [e.get("written_as_text") for e in rec["events"] if e["type"] == "tool_start"][0] is True


def test_an_openai_compatible_server_is_recorded_with_its_api_url_digest_and_options_as_sent(fake_openai, tmp_path):
    from testing.fake_openai import llama_cpp_call
    from testing.fake_openai import text as sse_text
    fake_openai.play(llama_cpp_call("read_file", '{"path": "path_rules.py"}'), sse_text("It splits on '/' only."))
    output = tmp_path / "run.json"
    digest = "sha256:" + "ab" * 32
    assert record_run.main(["--api", "openai", "--base-url", fake_openai.url, "--model", "qwen2.5-coder-1.5b",
                            "--model-digest", digest, "--temperature", "0.7", "--num-ctx", "4096",
                            "--output", str(output)]) == 0
    rec = load(output)
    assert rec["server"] == {"api": "openai", "url": fake_openai.url}
    assert rec["model"] == {"name": "qwen2.5-coder-1.5b", "digest": digest}
    assert rec["settings"]["options"] == {"temperature": 0.7, "seed": 7, "max_tokens": 2048}  # num_ctx is not sent
    sent = fake_openai.requests[0]
    assert (sent["temperature"], sent["seed"], sent["max_tokens"]) == (0.7, 7, 2048)
    assert [e["name"] for e in rec["events"] if e["type"] == "tool_result"] == ["read_file"]


def test_an_openai_compatible_server_that_is_not_there_is_one_line_naming_the_url(tmp_path, capsys):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    assert record_run.main(["--api", "openai", "--base-url", url, "--model", "m", "--output", str(tmp_path / "r.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and url in err and "--base-url" in err and err.count("\n") == 1
    assert "ollama pull" not in err


def test_api_openai_needs_a_base_url_and_a_model(capsys):
    with pytest.raises(SystemExit):
        record_run.main(["--api", "openai"])
    assert "--base-url URL and --model NAME" in capsys.readouterr().err


def test_a_reader_that_goes_away_does_not_lose_the_run(fake_ollama, tmp_path):
    fake_ollama.play([text("Reading."), done(tool_calls=[call("read_file", path="path_rules.py")])],
                     [text("Done."), done()])
    output = tmp_path / "run.json"
    process = subprocess.Popen([sys.executable, str(HERE / "record_run.py"), "--host", fake_ollama.url,
                                "--output", str(output)], cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0 and b"Traceback" not in err
    assert load(output)["stop"]["reason"] == "assistant_finished"


def test_a_silent_stream_late_in_the_run_is_cut_at_the_deadline_not_a_whole_budget_later(fake_ollama, tmp_path):
    fake_ollama.play([Stall(0.8), done(tool_calls=[call("read_file", path="path_rules.py")])],
                     [Stall(10), text("late"), done()])
    output = tmp_path / "run.json"
    assert record_run.main(["--host", fake_ollama.url, "--output", str(output), "--deadline", "1.2"]) == 0
    rec = load(output)
    assert rec["stop"] == {"type": "stopped", "turn": 2, "reason": "deadline"}
    # The second request may read only what is left of the 1.2 s (plus a moment, about 1.45 s in
    # all), not another 1.2 s (about 2 s in all).
    assert sum(rec["timings"]["model_s"]) < 1.8, rec["timings"]



def test_a_server_that_only_keeps_the_stream_alive_is_cut_at_the_deadline(fake_openai, tmp_path):
    from testing.fake_openai import KEEP_ALIVE, Forever, delta
    fake_openai.play([delta(content="Thinking"), Forever(KEEP_ALIVE)])
    output = tmp_path / "run.json"
    assert record_run.main(["--api", "openai", "--base-url", fake_openai.url, "--model", "qwen2.5-coder-1.5b",
                            "--output", str(output), "--deadline", "0.8"]) == 0
    rec = load(output)
    assert rec["stop"] == {"type": "stopped", "turn": 1, "reason": "deadline"}
    assert sum(rec["timings"]["model_s"]) < 4, rec["timings"]  # not until the server gives up (30 s)


@pytest.mark.parametrize(("api", "flag", "path"), [("ollama", "--host", ""), ("openai", "--base-url", "/v1")])
def test_servers_that_take_a_connection_and_never_answer_are_checked_at_once_within_a_short_bound(
        tmp_path, capsys, monkeypatch, api, flag, path):
    """Before, the start check waited the run's read timeout (300 s) on each server in turn,
    whatever --deadline said. Now both are asked at once, each for CHECK_SECONDS."""
    from attempt import adapters
    monkeypatch.setattr(adapters, "CHECK_SECONDS", 1.5, raising=False)
    code = []
    with silent_server() as (one, first), silent_server() as (two, second):
        argv = ["--api", api, flag, one + path, flag, two + path, "--model", "qwen2.5-coder-1.5b",
                "--deadline", "1000", "--output", str(tmp_path / "run.json")]
        command = threading.Thread(target=lambda: code.append(record_run.main(argv)), daemon=True)
        command.start()
        command.join(30)  # a wide bound, only to catch a hang: the check itself takes 1.5 s
        assert not command.is_alive(), "the start check hung"
    assert code == [1] and not (tmp_path / "run.json").exists()
    assert abs(first[0] - second[0]) < 1.5  # the second was asked before the first one's bound ran out
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and "sent nothing for 1.5 s" in err[-1]
