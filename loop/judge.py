"""Judging a turn once its calls have run: finished, malformed, unchanged, stuck, or go on.

agent_loop.py calls `judge_turn` as the sixth step of every turn. It answers with a stop
reason, or with None after appending any correction (a `nudge`) to the conversation; the
words of every correction and the memory across turns (turn_policy.Watch) live in
turn_policy.py, so this file reads as the decisions alone.

Under check_first a check of the harness runs the tests that failed at the start before the
whole selection; a change that makes them pass and breaks others is told which (`broke`).

What this file deliberately is not: a verdict. `verify_finish` runs the tests to hand
failures back to the model; whether the repair worked is decided after the run, independently.
"""
from loop import turn_policy as policy
from loop.dispatch import invoke
from loop.written import Refused


def judge_turn(run, turn, outcome, *, calls, written, ran):
    """After a turn: return a stop reason, or None (after appending any correction)."""
    watch = run.watch
    if correction := _unchanged(run, turn, calls, ran):
        if watch.unchanged_turn():
            return "unchanged_edits"
    elif correction := _malformed(run, turn, outcome, calls=calls, written=written, ran=ran):
        if watch.malformed_turn():
            return "format_errors"
    else:
        watch.well_formed_turn()
        if ran["edited"] and run.settings.check_edits:
            correction = yield from _check_edit(run, turn, ran)
            if correction is None:
                return "tests_passed"
        elif ran["repeated"]:
            if watch.warned_stuck:
                return "no_progress"  # it was told once already
            watch.warned_stuck = True
            correction = policy.no_progress_nudge(turn, ran["repeated"])
        elif not calls:
            # A complete turn with text and no calls: the model says it is done.
            correction = yield from _check_finish(run, turn)
            if correction is None:
                return "assistant_finished"
        elif written:  # its edits ran, but the calls it wrote as text did not (text_calls="nudge")
            correction = policy.text_call_nudge(turn, written)
    if correction:
        yield correction
        run.messages.append({"role": "user", "content": correction["text"]})
    return None


def _unchanged(run, turn, calls, ran):
    """The correction for a turn whose every call was an edit that would change nothing (the
    model wrote its code back as it is: well-formed, but no step), or None. Under
    unchanged_edits="malformed", how runs were judged before that setting, it is malformed."""
    if run.settings.unchanged_edits != "apart" or not calls or ran["executed"]:
        return None
    if not all(isinstance(call, Refused) and call.unchanged for call in calls):
        return None
    return policy.unchanged_edit_nudge(turn, ran["results"], run.failures())


def _malformed(run, turn, outcome, *, calls, written, ran):
    """The correction for a malformed turn, or None: every call refused, calls only
    written as text (under text_calls="nudge"), or nothing at all."""
    if calls and ran["executed"] == 0:
        code = all(isinstance(call, Refused) for call in calls)
        return policy.refused_nudge(turn, ran["results"], run.names, code=code, failures=run.failures() if code else None)
    if not calls and written:
        return policy.text_call_nudge(turn, written)
    if not calls and not outcome["content"].strip():
        return policy.empty_turn_nudge(turn, run.names)
    return None


def _check_edit(run, turn, ran):
    """check_edits: after a turn that changed a file, the tests decide whether the run is over.
    Green ends it (None); red is a correction with the failures, so a model that wrote its
    edit and stopped knows it did not work. A test run the model made after its edit counts;
    otherwise the harness runs them itself, as for verify_finish."""
    result, broke = ran["tests"], False
    if result is None:
        result, broke = yield from _harness_tests(run, turn, len(ran["results"]))
        run.shown("run_tests", result)  # the run now knows these failures (run.failures())
    if result.get("exit_code") == 0 and not result.get("timed_out"):
        return None
    return policy.edit_fails_nudge(turn, result, run.correction(result, broke), broke=broke)


def _check_finish(run, turn):
    """verify_finish: run the tests for a model that says it is done; a nudge if they fail.
    The harness runs them itself, so the check works whether or not run_tests is offered."""
    watch, budget = run.watch, run.budget
    if watch.checks_left == 0 or budget.spent() or not any(
            schema["function"]["name"] == "run_tests" for schema in run.tools.schemas):
        return None
    watch.checks_left -= 1
    result, broke = yield from _harness_tests(run, turn, 0)
    if result.get("exit_code") == 0:
        return None
    return policy.tests_fail_nudge(turn, result, run.correction(result, broke), broke=broke)


def _harness_tests(run, turn, index):
    """A test run of the harness's own: (result, broke). Under check_first the tests that failed at
    the start run first (run.first_tests), which on a library is seconds instead of minutes: red
    is the answer. Green, the whole selection runs next, and what fails there the change broke
    (`broke`). A first run that says neither (an error, fewer tests than asked for) is passed
    over: the whole selection decides, as it does without check_first."""
    first = None
    if run.first_tests:
        result = yield from _run_tests(run, turn, index, run.first_tests)
        first = _first_verdict(result, run.first_tests)
        if first == "red":
            return result, False
        index += 1
    result = yield from _run_tests(run, turn, index)
    failed = result.get("exit_code") not in (0, None) and not result.get("timed_out")
    return result, first == "green" and failed


def _run_tests(run, turn, index, only=None):
    """One harness run of the tests (`only`: node ids), its events marked by_harness; its result.
    The selection is in the events (`only`), so a replay asks for the same run."""
    event = {"type": "tool_start", "turn": turn, "index": index, "name": "run_tests", "arguments": {},
             "by_harness": True, **({"only": list(only)} if only else {})}
    yield event
    result = invoke(run.tools, "run_tests", {}, run.budget, only=only)
    yield {**event, "type": "tool_result", "result": result}
    return result


def _first_verdict(result, only):
    """"green" when every one of `only` ran and passed, "red" when the run failed (exit 1: tests
    failed, 2: collection errors, or timed out), else None (pytest could not run them as asked)."""
    if "error" in result:
        return None
    if result.get("timed_out") or result.get("exit_code") in (1, 2):
        return "red"
    if result.get("exit_code") == 0 and result.get("passed") == len(only):
        return "green"
    return None
