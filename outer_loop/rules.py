"""The `rules` improver: read the failing attempts' traces, propose the next LoopSettings.

Each rule is a small named function with a trigger and one change: it looks at the failed
attempts of the last iteration for its evidence (what the model did, from the events and the
grades, never from what the model said about itself) and, when the evidence is there, proposes
one field's new value with a rationale that counts the attempts and names them. The same
traces always give the same changes.

Rules only move a setting from a weaker value to a stronger one (offer a tool, run what the
model wrote as text, preload, check a finish), and none moves one back, so a rule never undoes
the previous iteration's change: a weakening would need evidence no rule reads.

What this file deliberately is not: a judge of the attempts (their grades and verdicts are
made before it reads them) or a writer of prompts (prompt_rewrite.py asks the model for one).
"""
from dataclasses import replace

from agent_loop import SYSTEM
from outer_loop import traces

MOST_TURNS = 16


def _change(settings, field, to, rationale, evidence):
    return {"field": field, "from": _plain(getattr(settings, field)), "to": _plain(to),
            "rationale": rationale, "evidence": [a["attempt_id"] for a in evidence]}


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def _count(evidence, failed):
    return f"{len(evidence)} of {len(failed)} failed attempts"


def offer_run_tests(settings, failed, tasks):
    """Failed attempts never ran the tests, and run_tests is not offered: offer it."""
    evidence = [a for a in failed if not traces.ran_tests(a)]
    if "run_tests" in settings.offered_tools or not evidence:
        return None
    return _change(settings, "offered_tools", (*settings.offered_tools, "run_tests"),
                   f"{_count(evidence, failed)} never ran the tests and `run_tests` is not offered → offer it",
                   evidence)


def run_text_calls(settings, failed, tasks):
    """Failed attempts wrote their tool calls as text and were refused: run such calls."""
    evidence = [a for a in failed if traces.wrote_calls_as_text(a)]
    if settings.text_calls == "run" or not evidence:
        return None
    stopped = sum(a["stop"]["reason"] == "format_errors" for a in evidence)
    return _change(settings, "text_calls", "run",
                   f"{_count(evidence, failed)} wrote tool calls as text and were refused "
                   f"({stopped} stopped `format_errors`) → run calls written as text", evidence)


def preload_context(settings, failed, tasks):
    """Failed attempts never read a file: put the failures and the files in the first message."""
    evidence = [a for a in failed if not traces.read_a_file(a)]
    if settings.context == "preload" or not evidence:
        return None
    return _change(settings, "context", "preload",
                   f"{_count(evidence, failed)} never read a file → preload the failing tests' output "
                   "and the files into the first message", evidence)


def verify_finish(settings, failed, tasks):
    """Failed attempts claimed success while the tests failed: check every finish."""
    evidence = [a for a in failed if a["claim"]["contradicted"]]
    if settings.verify_finish > 0 or not evidence:
        return None
    return _change(settings, "verify_finish", 2,
                   f"{_count(evidence, failed)} claimed success with failing tests → verify_finish 2 "
                   "(the harness runs the tests when the model says it is done, and hands failures back)",
                   evidence)


def run_text_edits(settings, failed, tasks):
    """Failed attempts answered with code that would have edited a file, or could not copy the
    text replace_text needs: let the model answer with the corrected code instead."""
    code = [a for a in failed if traces.unapplied_code(a, tasks.get(a["task_name"]))]
    missed = [a for a in failed if a not in code and traces.missed_old_text(a)]
    if settings.text_edits == "run" or not code + missed:
        return None
    why = [f"answered with corrected code in fenced blocks or diffs that were not applied ({len(code)})"] if code else []
    why += [f"could not copy the text replace_text needs: `old` not found ({len(missed)})"] if missed else []
    return _change(settings, "text_edits", "run", f"{_count(code + missed, failed)} {' or '.join(why)} → "
                   "text_edits run (the model may answer with the corrected code)", code + missed)


def testing_prompt(settings, failed, tasks):
    """run_tests was offered, yet failed attempts never ran it: the prompt is the suspect."""
    evidence = [a for a in failed if not traces.ran_tests(a) and "run_tests" in traces.offered(a)]
    if settings.system == SYSTEM or "run_tests" not in settings.offered_tools or not evidence:
        return None
    return _change(settings, "system", SYSTEM,
                   f"{_count(evidence, failed)} never ran the tests although `run_tests` was offered → "
                   "use the harness's default prompt, which asks for a test run before and after each edit",
                   evidence)


def more_turns(settings, failed, tasks):
    """Failed attempts ran out of turns while still working: give them more."""
    evidence = [a for a in failed if a["stop"]["reason"] == "max_turns" and traces.edited(a)]
    if settings.max_turns >= MOST_TURNS or not evidence:
        return None
    to = min(MOST_TURNS, settings.max_turns + 4)
    return _change(settings, "max_turns", to,
                   f"{_count(evidence, failed)} edited a file and then ran out of turns → max_turns {to}", evidence)


RULES = (offer_run_tests, run_text_calls, preload_context, verify_finish, run_text_edits, testing_prompt,
         more_turns)


def slot(attempt):
    """(task, attempt number): the evidence is cited in this order, however the attempts came."""
    name, _, k = str(attempt["attempt_id"]).rpartition("-")
    return (name, int(k) if k.isdigit() else 0)


def propose(settings, attempts, tasks, rules=RULES):
    """(next settings, changes) from one iteration's graded attempts. Only the failed ones are
    read; `tasks` maps task names to Task objects (for the files a code block would edit)."""
    failed = sorted((a for a in attempts if a.get("grades") and a["verdict"] != "repaired"), key=slot)
    changes = [change for rule in rules if (change := rule(settings, failed, tasks))]
    fields = {c["field"]: (tuple(c["to"]) if isinstance(c["to"], list) else c["to"]) for c in changes}
    return replace(settings, **fields), changes
