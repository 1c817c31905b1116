"""Tool calls written as code: JSON objects and Python calls, read with the standard library.

Part of text_calls.py, which decides where in a reply to look; this file decides whether a
piece of JSON or Python is a call. `json.JSONDecoder` and `ast` do the parsing, so the rules
here are only about meaning:

    {"name": "read_file", "arguments": {"path": "x.py"}}    forms 4, 5, 6 ("parameters" too),
                                                             one or many, `# tools` lines between
    read_file(path="x.py")   read_file("x.py")                form 3 and python blocks

What this file deliberately is not: a runner. Python is parsed and `ast.literal_eval`ed, never
evaluated; a value that is not a literal is shown back as its source text. It also knows
nothing about fences or tags: text_calls.py and text_calls_markup.py hand it the text inside.
"""
import ast
import json
import re
from itertools import islice

from loop.tool_checks import nests_too_deep
from loop.turn_policy import MAX_CALLS_PER_TURN

# One past what the loop runs in a turn, so it still tells the model it wrote too many; a
# reply of 8,000 calls is not read to its end.
MOST_CALLS = MAX_CALLS_PER_TURN + 1
# Python longer than this is code the model shows, not a block of calls, and is not parsed.
MOST_PYTHON = 20_000


def tool_call(name, arguments):
    """One call in Ollama's shape, the same as a native call's."""
    return {"function": {"name": name, "arguments": arguments}}


# --- Forms 4, 5 and 6: JSON objects {"name": ..., "arguments" or "parameters": {...}} ---

DECODER = json.JSONDecoder()
# Between values: spaces, commas and whole `#` comments, as in the JSON lines a model wrote
# under a `# tools` line. One character or one comment per step, nothing nested: linear.
SEPARATORS = re.compile(r"(?:[\s,]|#[^\n]*)*")


def json_calls(text, tools, repair):
    """Calls from one JSON value, a list of them, or several in a row (one per line, say),
    with `#` comment lines before and between them. repair: see below."""
    values, pos = [], SEPARATORS.match(text).end()
    while pos < len(text) and len(values) < MOST_CALLS:
        decoded = json_prefix(text, pos)
        if decoded is None:
            return _broken_json_call(text[SEPARATORS.match(text).end():], tools) if repair else []
        value, pos = decoded
        values += value if isinstance(value, list) else [value]
        pos = SEPARATORS.match(text, pos).end()
    return [call for value in values if (call := _call_from_object(value, tools))]


def json_prefix(text, pos):
    """(the JSON value that starts at pos, where it ends), or None. A value nested deeper than
    any tool's arguments (tool_checks.MAX_NESTING) counts as unreadable too: a call made of it
    keeps its raw text, which the loop refuses by name, and nothing later chokes on it."""
    try:
        value, end = DECODER.raw_decode(text, pos)
    except (ValueError, RecursionError):  # bad JSON, too-long ints, nesting too deep for json
        return None
    return None if nests_too_deep(value) else (value, end)


def _call_from_object(obj, tools):
    if not isinstance(obj, dict) or obj.get("type") == "function":
        return None  # {"type": "function", "function": {...}} is the model echoing its schema
    name = obj.get("name")
    if not isinstance(name, str) or name not in tools:
        return None
    args = obj.get("arguments", obj.get("parameters"))
    if isinstance(args, dict) and args.get("type") == "object" and "properties" in args:
        return None  # a JSON schema, not argument values: another echo
    if isinstance(args, str):  # OpenAI style: a JSON string holding the object
        decoded = json_prefix(args.strip(), 0)
        args = decoded[0] if decoded and isinstance(decoded[0], dict) else args
    elif args is None:
        args = {}  # a tool without parameters: {"name": "run_tests"}
    elif not isinstance(args, dict):
        args = json.dumps(args)
    return tool_call(name, args)


def _broken_json_call(text, tools):
    """JSON that does not parse but names a known tool: keep the raw argument text, so the
    model can be told what went wrong. Without a readable name there is no call at all."""
    if text.lstrip()[:1] not in ("{", "[") or re.search(r'"type"\s*:\s*"function"', text):
        return []  # not shaped like a call, or a broken schema echo
    name = re.search(r'"name"\s*:\s*"([^"\\]*)"', text)
    if not name or name[1] not in tools:
        return []
    arguments = re.search(r'"(?:arguments|parameters)"\s*:\s*', text)
    raw = text[arguments.end():].strip() if arguments else text
    decoded = json_prefix(raw, 0)  # only the outer brace missing? then the arguments are fine
    return [tool_call(name[1], decoded[0] if decoded and isinstance(decoded[0], dict) else raw)]


# --- Form 3 and python blocks: Python call syntax, read with ast, never run ---

def python_calls(code, tools, strict):
    """strict (python blocks): every statement must be a bare call of a known tool.
    Lenient (tool_code blocks): every known-tool call anywhere, e.g. print(api.read_file(...))."""
    if len(code) > MOST_PYTHON:  # not a few calls: not worth parsing (100 KB takes 0.2 s or more)
        return [] if strict else _broken_python_call(code, tools)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # bad code, NULs, surrogates
        return [] if strict else _broken_python_call(code, tools)
    if strict:
        nodes = [getattr(statement, "value", None) for statement in tree.body]
        if not nodes or not all(isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                and node.func.id in tools for node in nodes):
            return []
    else:
        nodes = _known_calls_in_order(tree, tools)
    return [tool_call(_function_name(node), _python_arguments(node, tools[_function_name(node)]))
            for node in islice(nodes, MOST_CALLS)]


def _known_calls_in_order(tree, tools):
    """Calls of known tools anywhere in the code, in source order, one statement at a time
    (so a block of thousands is not walked to its end)."""
    for statement in tree.body:
        found = [node for node in ast.walk(statement) if isinstance(node, ast.Call) and _function_name(node) in tools]
        yield from sorted(found, key=lambda node: (node.lineno, node.col_offset))


def _function_name(call):
    return call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)


def _python_arguments(call, parameters):
    """Keywords by name, positionals in the schema's parameter order; anything else -> raw."""
    try:
        if len(call.args) > len(parameters) or any(k.arg is None for k in call.keywords):
            raise ValueError  # too many positionals, or **kwargs: the model must say what it meant
        args = dict(zip(parameters, map(ast.literal_eval, call.args)))
        for keyword in call.keywords:
            if keyword.arg in args:
                raise ValueError  # the same parameter twice
            args[keyword.arg] = ast.literal_eval(keyword.value)
        return args
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        # A variable or an expression: we never evaluate code, we show it back.
        return ", ".join(ast.unparse(node) for node in call.args + call.keywords)


def _broken_python_call(code, tools):
    for match in re.finditer(r"(?<![\w.])([A-Za-z_]\w*)\s*\(", code):
        if match[1] in tools:
            return [tool_call(match[1], code[match.end():].strip().removesuffix(")").strip())]
    return []
