"""The loop's policies: when is a turn malformed, when is the model stuck, what it is told.

Three kinds of turn count towards a stop, each on its own: a malformed turn (nothing usable:
empty, calls only written as text, every call refused), a turn that only wrote code back
unchanged (every call an edit that would change nothing; under unchanged_edits="apart"), and a
turn that repeats executed calls. A turn in which something ran resets the first two counts.

agent_loop.py asks these questions after each turn; the answers live here so the loop still
reads as the steps of a turn. Every correction is a `nudge`: a user message the model reads,
also emitted as an event so the transcript and the recording show it.

What this file deliberately is not: a retry layer. It never re-sends a request; it tells
the model what went wrong, and stops a run that keeps going wrong.
"""
import json

from workspace.pytest_output import read

MAX_CALLS_PER_TURN = 32   # a turn with thousands of run_tests calls must not run them all
FORMAT_ERROR_LIMIT = 3    # malformed turns in a row before the run stops (as mini-swe-agent)
UNCHANGED_EDIT_LIMIT = 3  # turns that only wrote code back unchanged, with nothing run between them
# Tool-result fields that describe this machine, not what the call did.
MACHINE_FIELDS = frozenset({"sandbox", "sandbox_warning"})


class Watch:
    """What the loop remembers across turns to judge them."""

    def __init__(self, verify_finish=0):
        self.malformed_in_a_row = 0
        self.unchanged_in_a_row = 0  # neither this nor the malformed count resets the other
        self.executed = []          # one signature per executed call, in order
        self.warned_stuck = False
        self.checks_left = verify_finish

    def malformed_turn(self):
        """Count a malformed turn; True when that makes too many in a row."""
        self.malformed_in_a_row += 1
        return self.malformed_in_a_row >= FORMAT_ERROR_LIMIT

    def unchanged_turn(self):
        """Count a turn that only wrote code back unchanged; True when that makes too many."""
        self.unchanged_in_a_row += 1
        return self.unchanged_in_a_row >= UNCHANGED_EDIT_LIMIT

    def well_formed_turn(self):
        """Something ran (or the model answered in words): both counts start again."""
        self.malformed_in_a_row = self.unchanged_in_a_row = 0

    def executed_call(self, name, arguments, result):
        """Remember a call that ran; return a description of the repeat it completes, or None."""
        self.executed.append(_signature(name, arguments, result))
        last = self.executed[-6:]
        if len(last) >= 3 and last[-1] == last[-2] == last[-3]:
            return f"{last[-1][0]} three times in a row"
        if len(last) == 6 and last[0::2] == [last[0]] * 3 and last[1::2] == [last[1]] * 3:
            return f"{last[0][0]} and {last[1][0]}, alternating, three times"
        return None


def _signature(name, arguments, result):
    """Two calls are the same when name, canonical arguments and result (less machine
    fields) are equal."""
    result = {key: value for key, value in result.items() if key not in MACHINE_FIELDS}
    return (name, _canonical(arguments), _canonical(result))


def _canonical(value):
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def nudge(turn, kind, text):
    return {"type": "nudge", "turn": turn, "kind": kind, "text": text}


def text_call_nudge(turn, calls):
    names = ", ".join(dict.fromkeys(call["function"]["name"] for call in calls))
    return nudge(turn, "tool_call_as_text",
                 f"You wrote a call to {names} as text in your reply, so it was not run. "
                 "To use a tool, make a real tool call through the tool-calling interface; "
                 "do not write the call in your message.")


def empty_turn_nudge(turn, tool_names):
    return nudge(turn, "empty_turn",
                 f"Your reply was empty: no text and no tool call. Call one of the tools "
                 f"({', '.join(tool_names)}), or reply with one short sentence if you are done.")


def refused_nudge(turn, results, tool_names, code=False, failures=None):
    """Nothing the model asked for ran. `code`: what it asked for was code written as text
    (text_edits="run") that could not be applied, so the words are about the code; `failures`
    (under context="preload") reminds the model what the code must fix."""
    if code:
        reminder = f"\nThe tests still fail:\n{failures}\n" if failures else " "
        return nudge(turn, "calls_refused",
                     f"Your code was not applied: {results[0]['error']}{reminder}Answer with the corrected "
                     "code again, or call replace_text with text copied exactly from the file.")
    return nudge(turn, "calls_refused",
                 f"None of your tool calls ran ({results[0]['error']}). Call one of "
                 f"{', '.join(tool_names)}, with its arguments as a JSON object of strings.")


def unchanged_edit_nudge(turn, results, failures=None):
    """Every edit of the turn would change nothing: the words of a refused edit (the refusal
    says "a no-op"), under a kind of its own, so transcripts and summaries count it apart."""
    return {**refused_nudge(turn, results, (), code=True, failures=failures), "kind": "unchanged_edit"}


def no_progress_nudge(turn, repeated):
    return nudge(turn, "no_progress",
                 f"You repeated the same call with the same result ({repeated}). "
                 "Repeating it will not change the result: try something else, "
                 "for example read the file again and change your approach.")


# check_first: the failing tests pass after the change, but the whole selection does not.
BROKE = "Your change made the tests that failed pass, but broke these"
BROKE_INTRO = "The tests that fail now:"


def edit_fails_nudge(turn, result, correction=None, broke=False):
    """check_edits: the model's change was applied, but the tests still fail (or, `broke`, the
    ones that failed at the start pass now and others fail)."""
    return tests_fail_nudge(turn, result, correction, opening="Your change was applied, but", broke=broke)


def tests_fail_nudge(turn, result, correction=None, opening="You said you were done, but", broke=False):
    """The model said it was done, but the tests fail. `correction` (under context="preload")
    carries the failures and the files it changed, so a model that answers in code can answer.
    `broke`: the tests that failed at the start pass, and these others fail (check_first)."""
    headline = BROKE if broke else f"{opening} the tests still fail"
    if correction:
        return nudge(turn, "tests_fail", f"{headline}.\n\n{correction}")
    failing = [line for kind, _test, line, _length in read(result.get("output"))[1] if kind in ("FAILED", "ERROR")]
    summary = "\n".join(failing[:10]) or str(result.get("output", ""))[-500:]
    return nudge(turn, "tests_fail",
                 f"{headline} (run_tests: exit_code "
                 f"{result.get('exit_code')}, {result.get('passed')} passed, {result.get('failed')} failed, "
                 f"{result.get('errors')} errors):\n{summary}\nKeep working: fix the code, then run_tests again.")
