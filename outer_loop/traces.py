"""What an attempt's trace shows the model did: small questions the improvers ask of it.

Each function reads one attempt (a recording with its grades) and answers from its events:
which tools the model called and with what result, what the harness told it, what it wrote.
The model's own words about what it did are never the evidence.

What this file deliberately is not: a grader (grades.py) or a rule (rules.py).
"""
from agent_loop import LoopSettings
from loop.text_edits import find_text_edits


def model_results(attempt):
    """(name, result) of each call the model made, in order (the harness's own checks left out)."""
    return [(e.get("name"), e.get("result")) for e in attempt["events"]
            if e.get("type") == "tool_result" and not e.get("by_harness") and isinstance(e.get("result"), dict)]


def ran_tests(attempt):
    return any(name == "run_tests" and "exit_code" in result for name, result in model_results(attempt))


def read_a_file(attempt):
    return any(name == "read_file" and "text" in result for name, result in model_results(attempt))


def edited(attempt):
    return any(name == "replace_text" and "replaced" in result for name, result in model_results(attempt))


def missed_old_text(attempt):
    """replace_text was refused because `old` was not copied exactly (not found, or not once):
    the model could not quote the file, though it may have known the fix."""
    return any(name == "replace_text" and "old text " in str(result.get("error", ""))
               for name, result in model_results(attempt))


def wrote_calls_as_text(attempt):
    """The harness refused calls the model wrote as text (text_calls="nudge")."""
    return any(e.get("type") == "nudge" and e.get("kind") == "tool_call_as_text" for e in attempt["events"])


def wrote_code_back_unchanged(attempt):
    """In some turn every edit would have changed nothing: the model wrote its code back as it
    was. Counted apart from malformed turns (the loop's unchanged_edits="apart"; a recording made
    before that setting shows such a turn as calls_refused, and is read as recorded)."""
    events = attempt["events"]
    return (any(e.get("type") == "nudge" and e.get("kind") == "unchanged_edit" for e in events)
            or attempt["stop"]["reason"] == "unchanged_edits")


def offered(attempt):
    """The tools the model was shown in this attempt."""
    return {schema.get("function", {}).get("name") for schema in attempt.get("tools", []) if isinstance(schema, dict)}


def replies(attempt):
    """The model's text, one string per turn."""
    turns = {}
    for event in attempt["events"]:
        if event.get("type") == "text_delta":
            turns.setdefault(event.get("turn"), []).append(str(event.get("text", "")))
    return ["".join(parts) for parts in turns.values()]


def unapplied_code(attempt, task):
    """The model answered with code that would have edited an editable file (a fenced block or a
    diff), and the harness took it as text because text_edits was off."""
    if task is None or LoopSettings.from_recorded(attempt.get("settings", {})).text_edits != "off":
        return False
    files = {}
    for path in task.editable:
        try:
            files[path] = (task.repo / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    tests = [path for path in task.readable if task.is_test_file(path)]
    return any("error" not in edit for reply in replies(attempt) for edit in find_text_edits(reply, files, tests))
