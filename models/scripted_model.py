"""A scripted small model for `improve.py --scripted`: what it does depends on the settings it is
run with, chosen once when the attempt starts, so the outer loop can climb offline.

The behaviours are the ones the traces of a real 1.5B model showed (recordings/live_*.json and
the README's lift table): it writes its calls as fenced JSON; given only the ticket it answers
in prose and claims a fix; given the failure and the files it either edits natively or answers
with the whole corrected file in a fenced block followed by `run_tests()` written as text, then
says all tests pass. Which of the last two a task gets is fixed per task (STYLE). Each choice is
a queue of turns played in order: the script never looks at what the loop sends.

What this file deliberately is not: a model, or evidence about one. Its pass rates show that
the outer loop works, nothing about any real model.
"""
from models.scripted_turns import call, done, text
from workspace.task_catalog import solution_edits

STYLE = {"path_rules": "native", "discount_percent": "blocks", "invoice_quantity": "native",
         "refund_limit": "blocks", "pagination_last_page": "native", "date_range_inclusive": "blocks"}
ABOUT = {"calls_as_text": "writes each tool call as a fenced json block, as the real 1.5B model did",
         "claims_from_ticket": "answers from the ticket alone, in prose, and claims a fix",
         "edits_untested": "reads the files and edits natively, but cannot run the tests",
         "repair": "reads, runs the tests, edits natively, runs them again, says what it changed",
         "whole_file": "answers with the whole corrected file in a fenced block, then run_tests() as text"}


def choose(task, settings):
    """Which behaviour this configuration gets from the scripted model for this task."""
    if settings.text_calls == "nudge":
        return "calls_as_text"  # every call refused, three times: format_errors
    if settings.context == "tools":
        return "claims_from_ticket"  # it never reads a file on its own
    if STYLE.get(task.name, "native") == "blocks":
        return "whole_file"  # applied only under text_edits="run"
    return "repair" if "run_tests" in settings.offered_tools else "edits_untested"


def scripted_attempt(task, settings):
    """(about, turns) for one attempt; padded with its last turn up to max_turns, so the loop's
    own policies (no progress, the turn budget) end a run the script did not foresee."""
    kind = choose(task, settings)
    turns = BUILDERS[kind](task)
    return f"{kind}: {ABOUT[kind]}", turns + [turns[-1]] * max(0, settings.max_turns - len(turns))


def _edits(task):
    calls = []
    for edit in solution_edits(task):
        arguments = {"old": edit["old"], "new": edit["new"]}
        if len(task.editable) > 1:
            arguments["path"] = edit["path"]  # several editable files: the call names one
        calls.append(call("replace_text", **arguments))
    return calls


def calls_as_text(task):
    written = f'```json\n{{"name": "read_file", "arguments": {{"path": "{task.editable[0]}"}}}}\n```'
    return [[text(written), done()]]


def claims_from_ticket(task):
    return [[text("I fixed the bug described in the ticket; the tests pass now."), done()]]


def edits_untested(task):
    return [[done(tool_calls=[call("read_file", path=path) for path in task.editable])],
            [done(tool_calls=_edits(task)[:1])],
            [text("Fixed: I changed the code as the ticket asks; all tests pass now."), done()]]


def repair(task):
    return [[done(tool_calls=[call("run_tests")])],
            [text("Found it."), done(tool_calls=_edits(task))],
            [done(tool_calls=[call("run_tests")])],
            [text("Fixed: the code now does what the ticket asks, and the tests pass."), done()]]


def whole_file(task):
    blocks = "".join(f"Here is the corrected `{path}`:\n\n```python\n{text_}```\n\n"
                     for path, text_ in _fixed_files(task).items())
    return [[text(blocks + "```python\nrun_tests()\n```"), done()],
            [text("The code is fixed and all tests pass now."), done()]]


def _fixed_files(task):
    """Each editable file with the task's solution applied: what the model writes out whole."""
    files = {path: (task.repo / path).read_text(encoding="utf-8") for path in task.editable}
    for edit in solution_edits(task):
        files[edit["path"]] = files[edit["path"]].replace(edit["old"], edit["new"], 1)
    return files


BUILDERS = {"calls_as_text": calls_as_text, "claims_from_ticket": claims_from_ticket,
            "edits_untested": edits_untested, "repair": repair, "whole_file": whole_file}
