"""What a complete turn without native calls wrote as text: edits (code blocks, diffs) and calls.

Step 3 of a turn in agent_loop.py. Small models answer a failure with the corrected code in a
fenced block, and often write `run_tests()` after it in the same reply: under
`text_edits="run"` the edits become `replace_text` calls (loop/text_edits.py finds them), and
they run before any call written as text in that turn, because the model means both, in that
order. Under `text_calls="run"` the written calls run too; under "nudge" they are handed back
as not run, so the model can be told.

What this file deliberately is not: a parser (text_edits.py and text_calls.py read the text)
or an editor: every edit still goes through replace_text, with its allowlist and checks.
"""
from loop.line_endings import line_ending, with_line_ending
from loop.text_calls import find_text_calls
from loop.text_edits import find_text_edits


def written_calls(run, content):
    """(calls to run, calls written as text that are not run), in the order they run."""
    edits = text_edit_calls(run, content) if run.settings.text_edits == "run" else []
    written = find_text_calls(content, run.schemas)
    if run.settings.text_calls == "run":
        return edits + written, []
    return edits, written


def text_edit_calls(run, content):
    """The edits in a reply as replace_text calls; an edit that cannot be applied becomes a call
    carrying its `refusal`, so the model reads why (which hunk, what did not match)."""
    task = run.tools.task
    # A file with CRLF endings is read as LF, as the reply is: replace_text puts its CRLF back.
    files = {path: with_line_ending(text, "\n") if line_ending(text) == "\r\n" else text
             for path in task.editable if (text := current_text(run.tools, path)) is not None}
    others = [path for path in task.readable if path not in task.editable]
    calls = []
    # Methods are read as edits only where a long file is answered by definitions: before that
    # setting, a method alone was no edit, and a replayed recording must read what it read then.
    for edit in find_text_edits(content, files, others, methods=run.settings.answer_form != "file"):
        # The tool's schema asks for a path only when the task has several editable files.
        named = {"path": edit["path"]} if len(task.editable) > 1 and edit.get("path") else {}
        if "error" in edit:
            calls.append(Refused({"function": {"name": "replace_text", "arguments": named}}, edit["error"],
                                 unchanged=edit.get("unchanged", False)))
        else:
            calls.append(TextEdit({"function": {"name": "replace_text",
                                                "arguments": {**named, "old": edit["old"], "new": edit["new"]}}}))
    return calls


class TextEdit(dict):
    """An edit the harness made from code the model wrote (text_edits="run"). It runs whether or
    not replace_text is offered as a tool: a configuration may ask for code alone (no tools), and
    text_edits="run" is then the edit's permission. A class, not a key, so no stream can forge it."""


class Refused(dict):
    """A call the harness made from the model's text and refuses before it runs, with why. A
    class of its own, not a key: nothing a server streams can make a call refused this way.
    `unchanged`: the edit would change nothing (the model wrote the code back as it is)."""

    def __init__(self, call, refusal, unchanged=False):
        super().__init__(call)
        self.refusal, self.unchanged = refusal, unchanged


def current_text(tools, path):
    """An editable file's whole text as replace_text will see it, or None when it cannot be read:
    the tools' own read, not read_file's, which shows a big file only in part."""
    try:
        return tools.file_text(path)
    except (ValueError, TypeError, OSError):
        return None
