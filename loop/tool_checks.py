"""Checking a tool call's arguments against its flat JSON schema, before anything runs.

Shared by the loop (which refuses a bad call before dispatch and counts it as refused) and by
RepoTools.invoke (which must be safe to call directly too).

What this file deliberately is not: a JSON-schema validator. The schemas here are flat
(string properties, `required`), so the check is a few lines.
"""


def argument_problem(schema, arguments):
    """Return why `arguments` do not fit the function tool `schema`, or None when they do."""
    name = schema["function"]["name"]
    parameters = schema["function"]["parameters"]
    if not isinstance(arguments, dict):
        return f"arguments for {name} must be a JSON object, got {type(arguments).__name__}"
    expected = set(parameters["properties"])
    unexpected = sorted(map(str, set(arguments) - expected))
    missing = sorted(set(parameters["required"]) - set(arguments))
    if unexpected or missing:
        return (f"{name} takes {sorted(expected) or 'no arguments'}; "
                f"unexpected: {unexpected}, missing: {missing}")
    for key, value in arguments.items():
        if not isinstance(value, str):
            return f"{name}: argument {key!r} must be a string, got {type(value).__name__}"
    return None
