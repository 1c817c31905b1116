"""Running a turn's tool calls: refuse what must not run, run the rest, answer every one.

`run_calls` is step 5 of a turn in agent_loop.py. A call with no name, an unknown tool,
arguments that do not fit the schema, one past MAX_CALLS_PER_TURN, or an edit written as text
that cannot be applied (its `refusal`) is refused before it reaches the tools; anything a tool
raises becomes an error result. What the model reads of a result is `run.shown(...)`: under
context="preload", test output is its failures and an unchanged file is a note. Either way the model gets
one tool message per call, in call order, so it can read what went wrong.

What this file deliberately is not: the tools themselves (repo_tools.py) or a sandbox.
"""
import json

import loop.turn_policy as policy
from loop.tool_checks import argument_problem, nests_too_deep, quoted
from loop.written import TextEdit


def run_calls(run, calls, written_as_text, turn):
    """Run each call (at most MAX_CALLS_PER_TURN); return what ran, or a deadline stop. Only
    the tools the run offers can run (agent_loop.Run.schemas)."""
    schemas = {schema["function"]["name"]: schema for schema in run.schemas}
    edits = {schema["function"]["name"]: schema for schema in run.tools.schemas if schema["function"]["name"] == "replace_text"}
    # `edited`: an edit was applied this turn; `tests`: the last test run after it (check_edits).
    ran = {"executed": 0, "results": [], "repeated": None, "edited": False, "tests": None}
    for index, call in enumerate(calls):
        if run.budget.spent():
            return {"stop": run.budget.reason()}
        name, arguments = name_and_arguments(call)
        start = {"type": "tool_start", "turn": turn, "index": index, "name": name, "arguments": arguments,
                 **({"written_as_text": True} if written_as_text else {})}
        yield start
        allowed = {**schemas, **edits} if isinstance(call, TextEdit) else schemas  # see written.TextEdit
        refusal = getattr(call, "refusal", None) or _refusal(allowed, name, arguments, index)
        result = {"error": refusal} if refusal else invoke(run.tools, name, arguments, run.budget)
        if not refusal:
            ran["executed"] += 1
            ran["repeated"] = run.watch.executed_call(name, arguments, result) or ran["repeated"]
        ran["results"].append(result)
        _note_edit_or_tests(ran, name, result)
        yield {**start, "type": "tool_result", "result": result}
        run.messages.append({"role": "tool", "tool_name": name or "", "content": json.dumps(run.shown(name, result))})
    return ran


def _note_edit_or_tests(ran, name, result):
    """Keep whether the turn changed a file, and the last test run since that change."""
    if name == "replace_text" and isinstance(result, dict) and "replaced" in result:
        ran["edited"], ran["tests"] = True, None
    elif name == "run_tests" and isinstance(result, dict) and "exit_code" in result and ran["edited"]:
        ran["tests"] = result


def _refusal(schemas, name, arguments, index):
    """Why a call must not run at all, or None. Refused calls never reach the tools."""
    if index >= policy.MAX_CALLS_PER_TURN:
        return f"too many calls in one turn: only the first {policy.MAX_CALLS_PER_TURN} run; this one did not"
    if name is None:  # text for arguments may say what an adapter could not read (adapter_http.py)
        shown = f"; its arguments: {quoted(arguments)}" if isinstance(arguments, str) else ""
        return "tool call has no function name" + shown
    if name not in schemas:
        return f"unknown tool {quoted(name)}; available tools: {', '.join(sorted(schemas))}"
    return argument_problem(schemas[name], arguments)


def invoke(tools, name, arguments, budget, only=None):
    """Run one tool; any exception it raises becomes an error the model can read. `only`: the
    harness's own narrowed test run (loop/judge.py), passed only when there is one, so tools
    that never narrow need not take it."""
    time_left = budget.left()
    keywords = {**({} if time_left is None else {"time_left": time_left}),  # a tool gets no more than that
                **({} if only is None else {"only": only})}
    try:
        return tools.invoke(name, arguments, **keywords)
    except Exception as error:  # noqa: BLE001 - tools run code the model wrote
        return {"error": str(error) or type(error).__name__}


def name_and_arguments(call):
    """Read a call's name and arguments without trusting its shape."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return None, None
    name = function.get("name")
    return (name if isinstance(name, str) and name else None), function.get("arguments")


def assistant_message(outcome, calls):
    """The assistant message the next request carries: content, thinking, calls."""
    message = {"role": "assistant", "content": outcome["content"]}
    if outcome["thinking"]:
        message["thinking"] = outcome["thinking"]
    if calls:
        # Normalised so the SDK accepts them (it rejects non-object arguments, and json
        # gives up on deep nesting); the tool result already tells the model what was wrong.
        message["tool_calls"] = []
        for call in calls:
            name, arguments = name_and_arguments(call)
            arguments = arguments if isinstance(arguments, dict) and not nests_too_deep(arguments) else {}
            message["tool_calls"].append({"function": {"name": name or "", "arguments": arguments}})
    return message
