"""A user's mistakes named as the mistake they are (issue 35, item 3): one line each, naming the
flag as the user typed it, never an error about something else (a server "not answering" that
answers, `[Errno 2]`, a flag the command line does not have)."""
import subprocess
from pathlib import Path

import improve
import record_run
from fixing.flags import parse_args as fix_args
from replay import main as replay_main
from runs.recording_file import load
from testing.fake_openai import text as sse_text

HERE = Path(__file__).resolve().parent.parent


def test_a_base_url_without_a_scheme_is_taken_as_http(fake_openai, tmp_path, capsys):
    fake_openai.play(sse_text("Nothing to do."))
    output = tmp_path / "run.json"
    bare = fake_openai.url.removeprefix("http://")  # 127.0.0.1:PORT/v1, as users write it
    code = record_run.main(["--api", "openai", "--base-url", bare, "--model", fake_openai.model, "--max-turns", "1",
                            "--output", str(output)])
    assert code == 0, capsys.readouterr().err
    assert load(output)["server"] == {"api": "openai", "url": fake_openai.url}


def test_a_tasks_folder_that_does_not_exist_is_named(tmp_path, capsys):
    assert record_run.main(["--tasks-dir", str(tmp_path / "nope"), "--task", "x"]) == 1
    assert capsys.readouterr().err == f"error: --tasks-dir {tmp_path / 'nope'} does not exist\n"
    (tmp_path / "file").write_text("")
    assert record_run.main(["--tasks-dir", str(tmp_path / "file"), "--task", "x"]) == 1
    assert "is not a folder" in capsys.readouterr().err


def test_improve_names_its_own_start_flag_for_an_unknown_configuration(capsys):
    assert improve.main(["--scripted", "--start", "weaak"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --start weaak: no such configuration") and "--settings" not in err


def test_replay_of_a_missing_file_or_a_folder_is_one_line(tmp_path, capsys):
    assert replay_main([str(tmp_path / "missing.json")]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"error: {tmp_path / 'missing.json'}: no such file\n")
    assert replay_main([str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"error: {tmp_path} is a folder") and "Errno" not in err


def test_fix_takes_pytest_arguments_that_start_with_a_dash_as_users_write_them():
    assert fix_args(["--repo", ".", "--tests", "-v"]).tests == ["-v"]
    assert fix_args(["--repo", ".", "--tests", "-k dates", "--yes"]).tests == ["-k", "dates"]
    assert fix_args(["--tests", "--lf", "--repo", "."]).tests == ["--lf"]  # pytest's flag, not fix.py's


def test_the_default_output_folders_are_ignored_by_git():
    paths = ["evaluations/20260101-000000/summary.json", "improvements/20260101-000000/plan.json"]
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=HERE, capture_output=True, text=True)
    assert ignored.stdout.split() == paths
