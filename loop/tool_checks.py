"""Checking a tool call's arguments against its flat JSON schema, before anything runs, and
quoting what the model sent in the message that says what is wrong.

Shared by the loop (which refuses a bad call before dispatch and counts it as refused), by
RepoTools.invoke (which must be safe to call directly too), and by the model adapters, whose
errors quote what a server sent. `quoted` keeps every such message short: a 1 MB path comes
back as a few hundred characters of it, never as a 1 MB error in the next request.

Arguments nested deeper than MAX_NESTING are refused by name wherever they come from: as an
object, or as the JSON text an adapter or the text-call reader could not take as one
(`nests_too_deep`). Python's json gives up near 1,000 levels, so such text must never be parsed
anywhere it could end a run.

What this file deliberately is not: a JSON-schema validator. The schemas here are flat
(string properties, `required`), so the check is a few lines.
"""
import json

# Every tool takes a flat object of strings; nothing a model means nests this deep. Well below
# the 1,000 levels where Python's json (in the SDKs, the recorder) raises RecursionError.
MAX_NESTING = 100
DECODER = json.JSONDecoder()


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
    if nests_too_deep(arguments):
        return (f"arguments for {name} nest more than {MAX_NESTING} levels deep; "
                "a tool takes one flat JSON object of strings")
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


def nests_too_deep(value, limit=MAX_NESTING):
    """Whether lists and objects nest more than `limit` levels in `value`, or in the JSON text
    `value` is (text too deep for json to read at all counts). Walked level by level, never
    recursively, so any depth is safe: linear in the value's size."""
    if isinstance(value, str):
        try:  # the value the text starts with: text after it (a stray "}") changes nothing here
            value = DECODER.raw_decode(value.lstrip())[0]
        except RecursionError:
            return True
        except ValueError:  # not JSON: text of another kind, not nesting
            return False
    level, depth = [value] if isinstance(value, (dict, list)) else [], 0
    while level:  # the containers `depth` levels down
        depth += 1
        if depth > limit:
            return True
        level = [item for container in level for item in (container.values() if isinstance(container, dict)
                                                          else container) if isinstance(item, (dict, list))]
    return False
