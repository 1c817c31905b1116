"""The context a small model needs, written into its messages (`context="preload"`, TUTORIAL.md 4.9).

A small local model rarely calls read_file; given the failures and the code in one message it
answers with corrected code. So under "preload" the harness sends them itself, kept small,
because on a CPU the prompt's tokens are most of a turn's time:

- `preload_message(task, start_tests, read)`: the first user message: the task's prompt, the
  starting run's failures, the readable files (editable first, unless the task lists them in
  the order to show: `preload_paths`) within a budget, how to answer; under
  `preload_scope="focus"`, on a long file, only the code the ranking points into (context_focus.py).
- `correction_message(result, changed, read)`: after tests still fail: the failures and the
  current text of the files the model changed, so it can answer with a corrected block.
- `compact_output(result)`: a run_tests result whose output is the failure digest.
- `shown_result(name, result, seen)`: what the model reads of a tool result: a test run's
  failures, or `unchanged_note(path)` for a file it has seen and that has not changed.

What this file deliberately is not: part of the loop (agent_loop.py decides when each message is
sent) or a file reader (`read` is given, so the tools' allowlist still applies). Pure text: no
model, no I/O of its own, and no exception for odd input.
"""
from loop.context_files import FILES_BUDGET, file_blocks
from loop.context_focus import focused_paths, focused_prompt
from loop.failure_digest import failure_digest
from workspace.pytest_output import READING

UNCHANGED_NOTE = "unchanged since you last saw it"
# A file shown by definitions is answered by definitions: its whole text does not fit an answer.
DEFINITIONS_HINT = ("First say what the code does wrong. Then write each function or method you change, whole and "
                    "corrected, in a ```python block with {path} on the line before the block (a method inside its "
                    "`class` line, or alone). Do not write the whole file.")
TIMED_OUT = "The test run took too long and was stopped: a test may loop forever or wait."

def tests_passed(result):
    """A run passed when pytest exited 0 in time; anything else (a missing field too) is a failure."""
    return isinstance(result, dict) and result.get("exit_code") == 0 and not result.get("timed_out")


def compact_output(result, reading=READING):
    """`result` with `output` replaced: one line when the tests passed, else the failure digest
    (its output read the `reading` way, LoopSettings.pytest_reading). Every other field stays as
    it was; anything but a dict is returned unchanged."""
    if not isinstance(result, dict):
        return result
    if tests_passed(result):
        count = result.get("passed")
        line = f"all {count} tests passed" if isinstance(count, int) and count > 0 else "all tests passed"
        return {**result, "output": line}
    digest = failure_digest(result.get("output"), reading=reading)
    return {**result, "output": f"{TIMED_OUT}\n{digest}" if result.get("timed_out") else digest}


def preload_message(task, start_tests, read, budget=FILES_BUDGET, *, blocks=True, prompt=None, tool_edits=True):
    """The first user message: the prompt, the failures, the files (editable first), how to answer.
    `task` is a Task (or a plain prompt str), `start_tests` the starting run_tests result (or None);
    `blocks`: whether code blocks are run as edits (text_edits="run"), so the model may answer so;
    `prompt`: the task's prompt as the caller gives it (default: `task.prompt()`); `tool_edits`:
    whether replace_text is offered (if not, the model is asked for code blocks alone)."""
    return preload(task, start_tests, read, budget, blocks=blocks, prompt=prompt, tool_edits=tool_edits)[0]


def preload(task, start_tests, read, budget=FILES_BUDGET, *, blocks=True, prompt=None, tool_edits=True, hint=None,
            answering=None, reading=READING):
    """(the preload message, {path: text} of the files it shows whole): the loop remembers what
    the model has seen, so reading an unchanged file again costs a few tokens, not the file.
    `hint`: the message's last line, how to answer (None: the line for the form, `_how_to_answer`);
    `answering`: a context_defs.Answering, which shows a long file by definitions (None: whole)."""
    if prompt is None:
        prompt = task.prompt() if callable(getattr(task, "prompt", None)) else str(task or "")
    paths, before = preload_paths(task), len(answering.shown) if answering else 0
    focused = focused_paths(paths, read, answering)
    if focused:  # preload_scope="focus" on a long file: the code the ranking points into, alone
        paths, prompt = focused, focused_prompt(task, prompt, focused)
    parts, shown = [prompt], {}
    if start_tests is not None:  # the integrator may skip the starting run
        parts.append(_failures(start_tests, "The tests fail now:", reading))
    parts += file_blocks(paths, read, budget, shown, answering)
    parts.append(_hint(_paths(task, "editable"), hint=hint, blocks=blocks, tool_edits=tool_edits, answering=answering,
                       before=before))
    return "\n\n".join(part for part in parts if part), shown


def preload_paths(task):
    """The files the preload shows, in order, while its budget lasts: the editable ones first;
    or, for a task whose `preload_as_listed` is true (fix.py's: the code the failing tests call
    comes first, then their own files), the readable files as the task lists them."""
    editable, readable = _paths(task, "editable"), _paths(task, "readable")
    if getattr(task, "preload_as_listed", False) is True:
        return list(dict.fromkeys(readable + editable))
    return list(dict.fromkeys(editable + readable))


def correction_message(result, changed, read, budget=FILES_BUDGET, *, blocks=True, tool_edits=True, hint=None,
                       answering=None, intro="The tests still fail:", reading=READING):
    """A correction after tests still fail: the failures, then the current text of the files the
    model changed (`changed`: their paths), and how to answer. A bare "tests still fail" was
    answered "I will continue to work on the code", three times in a row, by a real small model."""
    if isinstance(changed, (set, frozenset)):  # sorted: a message must not depend on hash order
        changed = sorted(path for path in changed if isinstance(path, str))
    changed = [changed] if isinstance(changed, str) else changed if isinstance(changed, (list, tuple)) else []
    paths = list(dict.fromkeys(path for path in changed if isinstance(path, str)))
    parts, before = [_failures(result, intro, reading)], len(answering.shown) if answering else 0
    if paths:
        parts.append("The current text of the file" + ("s" * (len(paths) > 1)) + " you changed:")
    parts += file_blocks(paths, read, budget, None, answering)
    parts.append(_hint(paths, hint=hint, blocks=blocks, tool_edits=tool_edits, answering=answering, before=before))
    return "\n\n".join(part for part in parts if part)


def shown_result(name, result, seen, reading=READING):
    """What the model reads of a tool result under "preload": the failures of a test run, and a
    note for a file it has seen unchanged. `seen` ({path: text}) learns every text it is shown."""
    if not isinstance(result, dict) or "error" in result:
        return result
    if name == "run_tests":
        return compact_output(result, reading)
    if name == "read_file" and isinstance(result.get("text"), str):
        if seen.get(result.get("path")) == result["text"]:
            return unchanged_note(result["path"])
        seen[result.get("path")] = result["text"]
    return result


def unchanged_note(path):
    """read_file's answer for a file the model already saw (preloaded or read) that has not
    changed since: a few tokens instead of the whole text again."""
    return {"path": path, "unchanged": True, "note": UNCHANGED_NOTE}


def _failures(result, intro, reading):
    if tests_passed(result):
        return "The tests pass now."
    return f"{intro}\n{compact_output(result if isinstance(result, dict) else {}, reading)['output']}"


def _hint(paths, *, hint, blocks, tool_edits, answering, before):
    """The last line: for a message that showed a file the model may change (`paths`) by
    definitions (`answering.shown` grew past `before`), how to answer by definitions; else
    `hint`, or the harness's own line. A long test file shown as its outline is no file to answer:
    naming it there asked a real model to write its fix into the test file."""
    by_definitions = [shown.path for shown in answering.shown[before:] if answering.asks_definitions(shown, paths)
                      ] if answering and blocks else []
    if by_definitions:
        return DEFINITIONS_HINT.format(path=by_definitions[0])
    return hint or _how_to_answer(paths, blocks, tool_edits)


def _how_to_answer(paths, blocks, tool_edits=True):
    """Short, because small models follow short instructions; the form text_edits="run" reads.
    Without replace_text on offer (`tool_edits` False) the model is asked for code alone, the
    wrong line first: a small model told only "answer with the corrected code" mostly wrote the
    file back unchanged, and this last line of the message weighs more than the system prompt."""
    if not blocks:  # code in the reply would stay text: only the tool edits
        return "To fix it, call replace_text with text copied exactly from the file."
    if not tool_edits:
        if len(paths) == 1:
            target = f"the whole corrected {paths[0]} in one ```python block, with {paths[0]}"
        else:
            target = "each file you correct, whole, in its own ```python block, with its name"
        return ("First copy the wrong line exactly as it is, then write it corrected. Then give "
                f"{target} on the line before the block.")
    if len(paths) == 1:
        return (f"To fix it, call replace_text, or answer with the corrected code of {paths[0]} in one "
                f"```python block, with {paths[0]} on the line before the block.")
    files = f" ({', '.join(paths)})" if paths else ""
    return (f"To fix it, call replace_text, or answer with the corrected code of each file you change{files} "
            "in its own ```python block, with the file's name on the line before the block.")


def _paths(task, field):
    paths = getattr(task, field, ())
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, (list, tuple)) else []
