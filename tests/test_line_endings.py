"""An edit keeps the file's line endings: a model writes "\\n" whatever the file uses. Native
replace_text calls and the three forms of edits written as text (definitions, whole file,
unified diff), each on a file with CRLF endings and on one with LF, through the real loop and
tools (no test run: the loop stops after the edit); then a file with mixed endings, edited
byte for byte as before."""
import pytest

from agent_loop import agent_events
from loop.line_endings import line_ending, with_line_ending
from repo_tools import RepoTools
from testing.scripted import ScriptedChat, call, done, text
from tests.user_repos import OPS, OPS_FIXED
from workspace.task_catalog import Task

DIFF = ("--- a/ops.py\n+++ b/ops.py\n@@ -1,3 +1,3 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n \n")
REPLIES = {  # what a model sends, always with "\n"
    "native": [done(tool_calls=[call("replace_text", old="def add(a, b):\n    return a - b\n",
                                     new="def add(a, b):\n    return a + b\n")])],
    "definitions": [text("The fix:\n\n```python\ndef add(a, b):\n    return a + b\n```\n"), done()],
    "whole file": [text(f"ops.py\n```python\n{OPS_FIXED}```\n"), done()],
    "diff": [text(f"```diff\n{DIFF}```\n"), done()],
}


def edited(tmp_path, data, reply):
    """The bytes of ops.py (holding `data`) after the loop ran one turn of `reply`."""
    (tmp_path / "ops.py").write_bytes(data)
    task = Task(name="endings", title="t", ticket="Fix add.", readable=("ops.py",), editable=("ops.py",),
                repo=tmp_path)
    events = list(agent_events(ScriptedChat(reply), RepoTools(tmp_path, task=task, sandbox_mode="none"), task.prompt(),
                               max_turns=1, text_edits="run"))
    replaced = [e["result"] for e in events if e["type"] == "tool_result" and e["name"] == "replace_text"]
    assert replaced and all("replaced" in result for result in replaced), replaced
    return (tmp_path / "ops.py").read_bytes()


@pytest.mark.parametrize("form", REPLIES)
@pytest.mark.parametrize("ending", ["\r\n", "\n"], ids=["CRLF", "LF"])
def test_an_edit_keeps_the_files_line_endings_byte_for_byte(tmp_path, form, ending):
    before = OPS.replace("\n", ending).encode()
    assert edited(tmp_path, before, REPLIES[form]) == OPS_FIXED.replace("\n", ending).encode()


def test_a_file_with_mixed_endings_is_edited_byte_for_byte(tmp_path):
    before = b"def add(a, b):\r\n    return a - b\n\n\ndef mul(a, b):\r\n    return a * b\n"
    reply = [done(tool_calls=[call("replace_text", old="a - b\n", new="a + b\n")])]
    assert edited(tmp_path, before, reply) == before.replace(b"a - b", b"a + b")


def test_the_convention_is_one_ending_used_throughout():
    assert [line_ending(t) for t in ("a\r\nb\r\n", "a\nb", "a\r\nb\n", "one line", "a\rb\r")] == [
        "\r\n", "\n", None, None, None]
    assert with_line_ending("a\nb\r\nc\rd", "\r\n") == "a\r\nb\r\nc\rd"
    assert with_line_ending("a\r\nb\n", "\n") == "a\nb\n"
