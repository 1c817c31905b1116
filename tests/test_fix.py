"""fix.py on small repositories in temporary folders, against the loopback servers: the user's
tree stays byte-identical (.git included) until a yes, the guardrails refuse what they must, the
terminal question decides, and the recording replays."""
import io
import json
import os
import pty
import select
import subprocess
import sys
import threading

import pytest

import fix
from attempt import run as attempt_run
import replay
from fixing.offer import ask
from settings.named import load_settings
from testing.scripted import call, done, text
from tests.user_repos import ADD_FIX, OPS, OPS_FIXED, PROJECT, TEST_OPS, make_project, tree_state

READ_OPS = call("read_file", path="src/calc/ops.py")


def repair_turns(edit=ADD_FIX):
    """Read, edit, say so: no run_tests in the loop (the verdict runs them anyway)."""
    return [done(tool_calls=[READ_OPS])], [done(tool_calls=[edit])], [text("Fixed add."), done()]


def run_fix(fake, repo, tmp_path, *flags):
    output = tmp_path / "out" / "run.json"
    code = fix.main(["--repo", str(repo), "--host", fake.url, "--output", str(output),
                     "--scripted", "--about", "a test repair", "--settings", "levers", *flags])
    return code, output


def changed(before, after):
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def test_yes_applies_exactly_the_patch_and_keeps_the_files_mode(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "calc")
    os.chmod(repo / "src/calc/ops.py", 0o600)
    before = tree_state(repo)
    fake_ollama.play(*repair_turns())
    code, output = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert changed(before, tree_state(repo)) == {"src/calc/ops.py"}  # no cache, no stray file, .git as it was
    assert (repo / "src/calc/ops.py").read_text() == OPS_FIXED
    assert os.stat(repo / "src/calc/ops.py").st_mode & 0o777 == 0o600
    assert "starting tests: exit_code 1, 1 passed, 1 failed" in printed and "verdict: repaired" in printed
    assert "+    return a + b" in printed and " 1 file changed, 1 insertion(+), 1 deletion(-)" in printed
    assert "Apply this patch" not in printed and "applied to" in printed
    # The patch written beside the recording is exactly what was applied: it reverses cleanly.
    patch = output.with_suffix(".patch")
    assert subprocess.run(["git", "-C", str(repo), "apply", "--check", "-R", str(patch)]).returncode == 0
    rec = json.loads(output.read_text())
    assert (rec["source"], rec["outcome"], rec["verdict"]) == ("scripted", "applied", "repaired")
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    assert rec["repository"] == {"name": "calc", "path": str(repo), "commit": head.strip(), "dirty": False}
    assert rec["task_spec"]["editable"] == ["src/calc/ops.py"] and "tests/test_ops.py" in rec["task_spec"]["tests"]


def test_without_a_terminal_nothing_is_applied_and_the_recording_replays(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "calc")
    before = tree_state(repo)
    fake_ollama.play(*repair_turns())
    code, output = run_fix(fake_ollama, repo, tmp_path)
    assert code == fix.NOT_APPLIED
    assert "not applied: no terminal to ask on (pass --yes" in capsys.readouterr().out
    assert tree_state(repo) == before
    assert output.with_suffix(".patch").read_text().startswith("--- a/src/calc/ops.py\n+++ b/src/calc/ops.py\n")
    for served in (False, True):
        replayed = replay.replay(output, served=served)
        assert replayed["differences"] == [] and replayed["verdict"] == "repaired"
    assert tree_state(repo) == before


def test_a_file_the_user_changed_since_the_run_started_blocks_the_apply(fake_ollama, tmp_path, capsys, monkeypatch):
    repo = make_project(tmp_path / "calc")
    real_run = attempt_run.run_recorded

    def the_user_goes_on_working(*args, **options):
        body = real_run(*args, **options)
        (repo / "src/calc/ops.py").write_text(OPS + "\n# my own work\n")
        return body
    monkeypatch.setattr(attempt_run, "run_recorded", the_user_goes_on_working)
    before = tree_state(repo)
    fake_ollama.play(*repair_turns())
    code, _ = run_fix(fake_ollama, repo, tmp_path, "--yes")
    assert code == fix.NOT_APPLIED
    assert "not applied: changed since the run started: src/calc/ops.py" in capsys.readouterr().out
    assert (repo / "src/calc/ops.py").read_text() == OPS + "\n# my own work\n"  # theirs, untouched
    assert changed(before, tree_state(repo)) == {"src/calc/ops.py"}


def test_a_patch_that_edits_a_test_is_never_applied_even_with_yes(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "calc")
    before = tree_state(repo)
    cheat = call("replace_text", path="tests/test_ops.py", old="add(2, 2) == 4", new="add(2, 2) == 0")
    fake_ollama.play([done(tool_calls=[cheat])], [text("The test passes now."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path, "--yes", "--editable", "*.py")
    printed = capsys.readouterr().out
    assert code == fix.NOT_APPLIED and tree_state(repo) == before
    assert "note: --editable includes test files (tests/test_ops.py)" in printed
    assert "verdict: tests were modified" in printed
    assert "not applied: the patch changes test files (tests/test_ops.py): never applied" in printed
    assert "-    assert add(2, 2) == 4" in output.with_suffix(".patch").read_text()  # still written


def test_a_patch_larger_than_max_changed_lines_is_never_applied(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "calc")
    before = tree_state(repo)
    fake_ollama.play(*repair_turns())
    code, output = run_fix(fake_ollama, repo, tmp_path, "--yes", "--max-changed-lines", "1")
    printed = capsys.readouterr().out
    assert code == fix.NOT_APPLIED and tree_state(repo) == before
    assert "verdict: repaired" in printed
    assert "not applied: the patch changes 2 lines, more than --max-changed-lines 1: never applied" in printed
    assert json.loads(output.read_text())["patch"]["refused"].startswith("the patch changes 2 lines")


def test_a_run_that_did_not_repair_is_never_applied(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "calc")
    before = tree_state(repo)
    fake_ollama.play(*repair_turns(call("replace_text", old="return a - b", new="return b - a")))
    code, _ = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == fix.NOT_APPLIED and tree_state(repo) == before
    assert "not applied: the verdict is 'not repaired', not 'repaired': never applied" in printed


def test_the_code_a_traceback_blames_is_read_first_and_stays_editable(fake_ollama, tmp_path):
    # The failing test raises inside the package: the file the traceback points at comes first,
    # before the test file, and it is code to repair, not a test file (what the real model's
    # trial found when the blamed file was once counted among the tests).
    files = {**PROJECT, "src/calc/ops.py": OPS + "\n\ndef mean(values):\n    return sum(values) / (len(values) - 1)\n",
             "src/calc/aaa.py": "ANSWER = 42\n",
             "tests/test_ops.py": TEST_OPS.replace("add, mul", "add, mean, mul") +
             "\n\ndef test_mean():\n    assert mean([5]) == 5\n"}
    repo = make_project(tmp_path / "calc", files)
    fake_ollama.play([text("I cannot tell."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path)
    spec = json.loads(output.read_text())["task_spec"]
    assert code == fix.NOT_APPLIED
    assert spec["readable"][:2] == ["src/calc/ops.py", "tests/test_ops.py"]
    assert "src/calc/ops.py" in spec["editable"] and "src/calc/ops.py" not in spec["tests"]


def answer_on_a_terminal(fake, repo, tmp_path, answer, monkeypatch):
    """Run fix.py with a pseudo-terminal as its stdin and stdout, and answer the question when it
    comes. In this process: the terminal is what is tested here, not the command line's process
    (tests/test_fix_real_repos.py starts fix.py itself, and stops it)."""
    main, terminal = pty.openpty()
    seen, unanswered = bytearray(), [answer]

    def user():  # reads the terminal as a person does, and answers the question once
        while select.select([main], [], [], 60)[0]:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: every writer has closed the terminal
                return
            seen.extend(chunk)
            if unanswered and b"[y/N] " in seen:
                os.write(main, unanswered.pop().encode() + b"\n")
    at_the_terminal = threading.Thread(target=user, daemon=True)
    at_the_terminal.start()
    with open(terminal, "r", closefd=False) as stdin, open(terminal, "w", closefd=False) as stdout:
        monkeypatch.setattr(sys, "stdin", stdin)
        monkeypatch.setattr(sys, "stdout", stdout)
        code = fix.main(["--repo", str(repo), "--host", fake.url, "--output", str(tmp_path / "out" / "run.json"),
                         "--settings", "levers"])
    os.close(terminal)
    at_the_terminal.join(60)
    os.close(main)
    return code, seen.decode("utf-8", "replace")


def test_only_y_or_yes_is_a_yes():
    for typed, yes in [("y\n", True), ("YES\n", True), (" yes \n", True), ("\n", False), ("n\n", False),
                       ("yeah\n", False), ("", False)]:
        out = io.StringIO()
        assert ask("Apply? [y/N] ", io.StringIO(typed), out) is yes, typed
        assert out.getvalue() == "Apply? [y/N] " + ("" if typed.endswith("\n") else "\n")  # end of input: a new line


@pytest.mark.parametrize("answer, applied", [("n", False), ("yes", True)])
def test_on_a_terminal_only_yes_applies(fake_ollama, tmp_path, monkeypatch, answer, applied):
    repo = make_project(tmp_path / "calc")
    before = tree_state(repo)
    fake_ollama.play(*repair_turns())
    code, seen = answer_on_a_terminal(fake_ollama, repo, tmp_path, answer, monkeypatch)
    assert f"Apply this patch to {repo}? [y/N] " in seen
    assert "\x1b[32m+    return a + b\x1b[0m" in seen  # coloured on a terminal
    if applied:
        assert code == 0 and changed(before, tree_state(repo)) == {"src/calc/ops.py"}
    else:
        assert code == fix.NOT_APPLIED and tree_state(repo) == before


def test_nothing_to_fix_is_said_and_no_model_is_asked(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "calc", {**PROJECT, "src/calc/ops.py": OPS_FIXED})
    before = tree_state(repo)
    code, output = run_fix(fake_ollama, repo, tmp_path)
    assert code == 0 and "nothing to fix: the tests pass (2 passed)" in capsys.readouterr().out
    assert fake_ollama.requests == [] and not output.exists() and tree_state(repo) == before


def test_a_folder_without_git_is_fixed_over_the_openai_api(fake_openai, tmp_path, capsys):
    from testing.fake_openai import llama_cpp_call
    from testing.fake_openai import text as sse_text
    repo = make_project(tmp_path / "calc", PROJECT, git=False)
    (repo / "src/calc/__pycache__").mkdir()
    (repo / "src/calc/__pycache__/ops.cpython-311.pyc").write_bytes(b"\0stale")
    before = tree_state(repo)
    fake_openai.play(llama_cpp_call("read_file", '{"path": "src/calc/ops.py"}'),
                     llama_cpp_call("replace_text", '{"old": "return a - b", "new": "return a + b"}'),
                     sse_text("Fixed add."))
    code = fix.main(["--repo", str(repo), "--api", "openai", "--base-url", fake_openai.url, "--model",
                     "qwen2.5-coder-1.5b", "--output", str(tmp_path / "run.json"), "--settings", "levers", "--yes"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert changed(before, tree_state(repo)) == {"src/calc/ops.py"}
    rec = json.loads((tmp_path / "run.json").read_text())
    assert rec["server"] == {"api": "openai", "url": fake_openai.url} and "commit" not in rec["repository"]
    assert "src/calc/__pycache__/ops.cpython-311.pyc" not in rec["sample"]  # caches are never copied


def test_fix_searches_by_default_and_offers_the_candidate_the_tests_chose(fake_ollama, tmp_path):
    """settings/small-model-explain.json (fix.py's default): whole-file answers, several candidates; the first candidate's
    file is wrong, the second's is right, and the patch offered and applied is the second's."""
    repo = make_project(tmp_path / "calc")
    wrong, right = OPS.replace("a - b", "b - a"), OPS.replace("a - b", "a + b")
    fake_ollama.play([text(f"The sum is wrong.\n\nsrc/calc/ops.py\n```python\n{wrong}```\n"), done()],
                     [text(f"add subtracts.\n\nsrc/calc/ops.py\n```python\n{right}```\n"), done()])
    output = tmp_path / "out" / "run.json"
    code = fix.main(["--repo", str(repo), "--host", fake_ollama.url, "--output", str(output),
                     "--scripted", "--about", "a test search", "--max-turns", "1", "--yes"])
    assert code == 0
    assert (repo / "src/calc/ops.py").read_text() == right
    rec = json.loads(output.read_text())
    assert rec["settings"]["candidates"] == load_settings("small-model-explain").candidates > 2
    assert rec["search"]["chosen"] == 2
    assert [c["index"] for c in rec["candidates"]] == [1, 2]  # the pass stopped the search
    assert [c["tests"]["exit_code"] for c in rec["candidates"]] == [1, 0] and rec["verdict"] == "repaired"


def test_a_repair_whose_output_folder_goes_mid_run_is_kept_under_fresh_names(fake_ollama, tmp_path, capsys,
                                                                              monkeypatch):
    """The folder of --output goes while the model answers (a file takes its place): the repaired
    run and its patch are kept in the temporary folder under fresh names, each said in one line,
    and nothing there is overwritten."""
    import shutil
    import tempfile
    spare, out = tmp_path / "tmp", tmp_path / "out"
    spare.mkdir()
    out.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))  # what TMPDIR says
    (spare / "run.json").write_text("someone else's file")

    def folder_gone():
        shutil.rmtree(out)
        out.write_text("no longer a folder")
    repo = make_project(tmp_path / "calc")
    read, edit, _ = repair_turns()
    fake_ollama.play(read, edit, [text("Fixed"), folder_gone, text(" add."), done()])
    code, _ = run_fix(fake_ollama, repo, tmp_path)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == fix.NOT_APPLIED and (spare / "run.json").read_text() == "someone else's file"
    runs, patches = sorted(spare.glob("run-*.json")), sorted(spare.glob("run-*.patch"))
    assert len(runs) == 1 and len(patches) == 1
    assert len(err) == 2 and err[0].startswith(f"warning: cannot write {out / 'run.json'} (")
    assert err[0].endswith(f"the run is saved in {runs[0]} instead") and f"the patch is saved in {patches[0]}" in err[1]
    rec = json.loads(runs[0].read_text())
    assert (rec["verdict"], rec["outcome"], rec["patch"]["file"]) == ("repaired", "no terminal", str(patches[0]))
    assert patches[0].read_text().startswith("--- a/src/calc/ops.py\n")


def test_a_candidate_that_changed_an_editable_test_file_never_ends_the_search(fake_ollama, tmp_path):
    """--editable may name a test file, but a candidate that changed test code is never chosen: the
    first candidate's edited test passes its own run, the search goes on, and the second's repair
    is chosen, judged and applied."""
    repo = make_project(tmp_path / "calc")
    cheat = TEST_OPS.replace("add(2, 2) == 4", "add(2, 2) == 0")
    fake_ollama.play([text(f"The test is wrong.\n\ntests/test_ops.py\n```python\n{cheat}```\n"), done()],
                     [text(f"add subtracts.\n\nsrc/calc/ops.py\n```python\n{OPS_FIXED}```\n"), done()])
    output = tmp_path / "out" / "run.json"
    code = fix.main(["--repo", str(repo), "--host", fake_ollama.url, "--output", str(output), "--scripted",
                     "--editable", "src/calc/ops.py", "tests/test_ops.py", "--max-turns", "1", "--yes"])
    rec = json.loads(output.read_text())
    first = rec["candidates"][0]
    assert first["changed_files"] == ["tests/test_ops.py"] and first["tests"]["exit_code"] == 0
    assert rec["search"]["chosen"] == 2 and rec["verdict"] == "repaired" and code == 0
    assert (repo / "src/calc/ops.py").read_text() == OPS_FIXED and (repo / "tests/test_ops.py").read_text() == TEST_OPS


def test_all_candidates_runs_every_candidate_of_the_search(fake_ollama, tmp_path):
    """fix.py --all-candidates: the first candidate's pass does not call the second off."""
    repo = make_project(tmp_path / "calc")
    right = [text(f"add subtracts.\n\nsrc/calc/ops.py\n```python\n{OPS_FIXED}```\n"), done()]
    fake_ollama.play(right, right)
    output = tmp_path / "out" / "run.json"
    code = fix.main(["--repo", str(repo), "--host", fake_ollama.url, "--output", str(output), "--scripted",
                     "--candidates", "2", "--all-candidates", "--max-turns", "1"])
    rec = json.loads(output.read_text())
    assert code == fix.NOT_APPLIED and rec["search"]["all_candidates"] is True
    assert [(c["index"], c.get("verdict")) for c in rec["candidates"]] == [(1, "repaired"), (2, "repaired")]
