"""fix.py on what ordinary repositories hold (issue 22): links, CRLF line endings, test-support
code, packaging files, missing dependencies, and a SIGTERM. Each runs fix.py itself on a small
repository in a temporary folder, against the loopback Ollama server."""
import json
import os

import fix
from testing.scripted import done, text
from tests.user_repos import ADD_FIX, OPS, OPS_FIXED, PROJECT, make_project, tree_state

DOCS_TEST = ("from pathlib import Path\n\n\ndef test_the_docs_link_reads_the_readme():\n"
             "    assert Path('docs.md').read_text() == '# calc\\n'\n")


def run_fix(fake, repo, tmp_path, *flags):
    output = tmp_path / "out" / "run.json"
    code = fix.main(["--repo", str(repo), "--host", fake.url, "--output", str(output),
                     "--scripted", "a test repair", *flags])
    return code, output


def changed(before, after):
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def test_links_inside_the_repository_work_and_one_pointing_outside_is_never_followed(fake_ollama, tmp_path, capsys):
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "token.txt").write_text("TOKEN-4711\n")
    repo = make_project(tmp_path / "calc", {**PROJECT, "README.md": "# calc\n", "tests/test_docs.py": DOCS_TEST},
                        links={"docs.md": "README.md", "token.txt": str(outside / "token.txt"), "private": "../private"})
    before = tree_state(repo)
    fake_ollama.play([done(tool_calls=[ADD_FIX])], [text("Fixed add."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path, "--yes", "--editable", "src/calc/ops.py", "docs.md")
    printed = capsys.readouterr().out
    assert code == 0, printed
    # The test that reads docs.md through its link passes: the link works in every copy.
    assert "starting tests: exit_code 1, 2 passed, 1 failed" in printed and "verdict: repaired" in printed
    assert ("note: left out of the copy: private (a link pointing outside the repository), "
            "token.txt (a link pointing outside the repository)") in printed
    assert "note: skipped from --editable: docs.md (not a regular file)" in printed
    assert changed(before, tree_state(repo)) == {"src/calc/ops.py"} and (repo / "src/calc/ops.py").read_text() == OPS_FIXED
    recording = output.read_text()
    assert "TOKEN-4711" not in recording and "TOKEN-4711" not in json.dumps(fake_ollama.requests)
    assert json.loads(recording)["task_spec"]["editable"] == ["src/calc/ops.py"]


def test_an_edit_keeps_crlf_endings_and_the_offered_diff_shows_them(fake_ollama, tmp_path, capsys):
    crlf = {**PROJECT, "src/calc/ops.py": OPS.replace("\n", "\r\n")}
    repo = make_project(tmp_path / "calc", crlf)
    # The whole file in a block, as small models answer, written with "\n" as they always do.
    fake_ollama.play([text(f"src/calc/ops.py\n```python\n{OPS_FIXED}```\n"), done()], [text("Fixed add."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert (repo / "src/calc/ops.py").read_bytes() == OPS_FIXED.replace("\n", "\r\n").encode()
    assert "\n-    return a - b\\x0d\n+    return a + b\\x0d\n" in printed  # the offer shows each "\r"
    assert " 1 file changed, 1 insertion(+), 1 deletion(-)" in printed
    assert b"-    return a - b\r\n+    return a + b\r\n" in output.with_suffix(".patch").read_bytes()
