"""Checking a tool call's arguments against its flat JSON schema, before anything runs, and
quoting what the model sent in the message that says what is wrong.

Shared by the loop (which refuses a bad call before dispatch and counts it as refused), by
RepoTools.invoke (which must be safe to call directly too), and by the model adapters, whose
errors quote what a server sent. `quoted` keeps every such message short: a 1 MB path comes
back as a few hundred characters of it, never as a 1 MB error in the next request.

What this file deliberately is not: a JSON-schema validator. The schemas here are flat
(string properties, `required`), so the check is a few lines.
"""


def quoted(value, limit=200):
    """`value` (text the model or a server sent) as repr quotes it, control characters
    escaped, cut to its first `limit` characters with a count of the rest."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text) - limit:,} more characters)"


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
                f"unexpected: {quoted_list(unexpected)}, missing: {missing}")
    for key, value in arguments.items():
        if not isinstance(value, str):
            return f"{name}: argument {quoted(key)} must be a string, got {type(value).__name__}"
    return None


def quoted_list(names, most=10):
    """Like str(names) for a few names; the first `most` of thousands, each quoted short."""
    shown = ", ".join(quoted(name, 50) for name in names[:most])
    return f"[{shown}, ... {len(names) - most:,} more]" if len(names) > most else f"[{shown}]"
