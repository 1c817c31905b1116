"""fix.py on what ordinary repositories hold (issue 22): links, CRLF line endings, test-support
code, packaging files, missing dependencies, and a SIGTERM. Each runs fix.py itself on a small
repository in a temporary folder, against the loopback Ollama server."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import fix
from testing.scripted import call, done, text
from tests.network import closed_port
from tests.user_repos import ADD_FIX, OPS, OPS_FIXED, PROJECT, make_project, tree_state

HERE = Path(__file__).resolve().parent.parent  # the project root

DOCS_TEST = ("from pathlib import Path\n\n\ndef test_the_docs_link_reads_the_readme():\n"
             "    assert Path('docs.md').read_text() == '# calc\\n'\n")


def run_fix(fake, repo, tmp_path, *flags):
    output = tmp_path / "out" / "run.json"
    code = fix.main(["--repo", str(repo), "--host", fake.url, "--output", str(output),
                     "--scripted", "--about", "a test repair", "--settings", "levers", *flags])
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
    assert "note: skipped from --editable: docs.md (a link)" in printed
    assert changed(before, tree_state(repo)) == {"src/calc/ops.py"} and (repo / "src/calc/ops.py").read_text() == OPS_FIXED
    recording = output.read_text()
    assert "TOKEN-4711" not in recording and "TOKEN-4711" not in json.dumps(fake_ollama.requests)
    assert json.loads(recording)["task_spec"]["editable"] == ["src/calc/ops.py"]
    assert json.loads(recording)["task_spec"]["left_out"] == [  # the copy's, then the choice's
        "private (a link pointing outside the repository)", "token.txt (a link pointing outside the repository)",
        "docs.md (a link)"]


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


SUPPORTED = {  # the tests take their expected values from testing/expected.py, outside tests/
    "pyproject.toml": '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\npythonpath = ["src", "."]\n',
    "src/calc/__init__.py": "", "src/calc/ops.py": OPS, "testing/__init__.py": "", "testing/expected.py": "SUM = 4\n",
    "tests/test_ops.py": "from calc.ops import add\nfrom testing.expected import SUM\n\n\n"
                         "def test_add():\n    assert add(2, 2) == SUM\n",
    "setup.py": "from setuptools import setup\n\nsetup(name='calc')\n", "docs/conf.py": "project = 'calc'\n",
    "noxfile.py": "import nox\n",
}


def test_test_support_code_and_packaging_are_never_editable_by_default(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "calc", SUPPORTED)
    before = tree_state(repo)
    # The "repair" a model may find: make the tests expect what the broken code returns.
    cheat = call("replace_text", path="testing/expected.py", old="SUM = 4", new="SUM = 0")
    fake_ollama.play([done(tool_calls=[cheat])], [text("The tests pass now."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == fix.NOT_APPLIED and tree_state(repo) == before, printed
    assert "note: test code the tests import, never editable by default: testing/__init__.py, testing/expected.py" in printed
    spec = json.loads(output.read_text())["task_spec"]
    assert spec["editable"] == ["src/calc/ops.py"] and "testing/expected.py" in spec["tests"]
    assert {"setup.py", "docs/conf.py", "noxfile.py", "testing/expected.py"} <= set(spec["readable"])
    assert "verdict: not repaired" in printed


WRONG_MODULUS = ("def ordinal(number):\n    \"\"\"The suffix of an ordinal: 1st, 2nd, 11th.\"\"\"\n"
                 "    if abs(number) % 100 in (11, 12, 13):\n        return 'th'\n"
                 "    return {1: 'st', 2: 'nd', 3: 'rd'}.get(abs(number) % 12, 'th')\n")
LIBRARY = {  # inflection's shape: a package, its test at the root, and long packaging and Sphinx files
    "setup.py": "from setuptools import setup\n\n" + "# packaging notes\n" * 600 + "setup(name='words')\n",
    "docs/conf.py": "project = 'words'\n" + "# sphinx settings\n" * 600,
    "words/__init__.py": "from words.suffixes import ordinal\n",
    "words/plural.py": "def plural(word):\n    return word + 's'\n" + "# more rules\n" * 800,
    "words/suffixes.py": "# the rules\n" * 200 + WRONG_MODULUS,
    "test_words.py": "import words\n\n\ndef test_ordinal():\n    assert words.ordinal(22) == 'nd'\n",
}


def test_the_model_is_first_shown_the_code_the_failing_test_calls(fake_ollama, tmp_path, capsys):
    repo = make_project(tmp_path / "words", LIBRARY)
    fake_ollama.play([text("I cannot tell."), done()], [text("Still no."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path)
    printed = capsys.readouterr().out
    assert code == fix.NOT_APPLIED, printed
    first = fake_ollama.requests[0]["messages"][1]["content"]
    # A failed assertion has no traceback frame in the code: the call words.ordinal names it.
    assert "words/suffixes.py\n```python\n" in first and WRONG_MODULUS.strip() in first
    assert first.index("words/suffixes.py\n```") < first.index("test_words.py\n```")
    assert "# packaging notes" not in first and "# sphinx settings" not in first
    assert "context: the model is shown words/suffixes.py, words/__init__.py, test_words.py" in printed
    assert ("context: left out (the model may read them; --readable GLOB shows files first): "
            "words/plural.py, setup.py, docs/conf.py") in printed


def test_sigterm_cleans_up_as_ctrl_c_does(tmp_path):
    # The user's whole tree is copied to the temp folder, uncommitted work and an untracked .env
    # included: a `kill` while the tests run must leave none of it there.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    repo = make_project(tmp_path / "calc", {**PROJECT, "tests/test_slow.py": SLOW_TEST})
    (repo / ".env").write_text("API_KEY=secret\n")
    process = subprocess.Popen([sys.executable, "-B", str(HERE / "fix.py"), "--repo", str(repo), "--host",
                                f"http://127.0.0.1:{closed_port()}", "--output", str(tmp_path / "out" / "run.json"),
                                "--settings", "levers"],
                               cwd=HERE, text=True, env={**os.environ, "TMPDIR": str(scratch)},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline().startswith("repository: ")  # the copy is made; the tests start
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert [p.name for p in scratch.iterdir()] == []  # no copy of the repository, no test run's scratch
    assert process.returncode == 130 and "interrupted: nothing was applied" in err, err


SLOW_TEST = "import time\n\n\ndef test_slow():\n    time.sleep(30)\n"


SUBTESTS = {**PROJECT, "tests/test_ops.py": (
    "import unittest\n\nfrom calc.ops import add\n\n\nclass TestAdd(unittest.TestCase):\n    def test_add(self):\n"
    "        for a, b, total in [(1, 0, 1), (2, 2, 4)]:\n            with self.subTest(a=a, b=b):\n"
    "                self.assertEqual(add(a, b), total)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n")}


def test_a_failing_subtest_is_read_and_its_repair_judged_repaired(fake_ollama, tmp_path, capsys):
    # pytest counts a failed subtest in "failed" and its test as passed ("1 failed, 2 passed,
    # 1 subtests passed"), as python-slugify's tests report: read as a failure, and repaired.
    repo = make_project(tmp_path / "calc", SUBTESTS)
    fake_ollama.play([done(tool_calls=[ADD_FIX])], [text("Fixed add."), done()])
    code, output = run_fix(fake_ollama, repo, tmp_path, "--yes")
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "starting tests: exit_code 1, 2 passed, 1 failed" in printed and "verdict: repaired" in printed
    assert "- tests/test_ops.py::TestAdd::test_add: AssertionError" in json.loads(output.read_text())["task_spec"]["ticket"]
