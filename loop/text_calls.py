"""Recover tool calls that a small local model wrote into its text instead of the tool-call field.

`find_text_calls(text, schemas)` returns them in Ollama's call shape, in order of appearance.
The forms, numbered (what the loop does with them: TUTORIAL.md, sections 4.4 and 5.4):

    1. <|tool_call>call:read_file{path:<|"|>x.py<|"|>}<tool_call|>      Gemma 4
    2. call:read_file{path:"x.py"}                                       Gemma 4 behind vLLM
    3. ```tool_code  read_file(path="x.py")  ```                         Gemma, Python syntax
    4. <tool_call>{"name": "read_file", "arguments": {...}}</tool_call>   Hermes / Qwen 2.5
    5. ```json  {"name": "read_file", "arguments": {...}}  ```            many small models
       (one object, a list, or one per line, under `# tools` comment lines as fix.py saw)
    6. {"name": "read_file", "parameters": {...}}  as the whole reply     qwen2.5-coder, llama3.1
    7. <function=read_file><parameter=path>x.py</parameter></function>    qwen3-coder
    and ```python blocks in which every statement is a bare tool call    Qwen2.5-Coder-1.5B

This file decides where to look: the whole reply, fenced blocks by their label, and the prose
between them. What counts as a call is decided in two others: text_calls_code.py (JSON objects
and Python calls, forms 3, 5 and 6) and text_calls_markup.py (the tags of forms 1, 2, 4 and 7).

What this file deliberately is not: a general parser of model output, or a judge of whether a
call is wise. It runs nothing, evaluates no code (`ast.literal_eval` only), knows only the tool
names it is given, and never raises on a str. Prose, inline `code`, Python samples the model
explains and echoes of the tool schema are not calls. Reading is linear in the reply's length
and stops one call past what the loop runs in a turn (MOST_CALLS).
"""
import re

from loop.text_calls_code import MOST_CALLS, json_calls, python_calls
from loop.text_calls_markup import markup_calls


def find_text_calls(text, schemas):
    """The tool calls written in `text`: [{"function": {"name": ..., "arguments": dict or str}}].
    Arguments that cannot be read stay a str, so the loop can answer with an error."""
    tools = _parameter_order(schemas)
    # The cheap pre-check: most replies are prose that names no tool, so skip all parsing.
    if not isinstance(text, str) or not any(name in text for name in tools):
        return []
    try:
        return _find(text, tools)
    except RecursionError:  # the parsers catch it themselves; this only backs them up
        return []


def _parameter_order(schemas):
    """{tool name: its parameter names, required first}: the order positional arguments fill."""
    order = {}
    for schema in schemas or ():
        function = schema.get("function") or {}
        parameters = function.get("parameters") or {}
        required = list(parameters.get("required") or ())
        if isinstance(function.get("name"), str) and function["name"]:
            optional = [p for p in parameters.get("properties") or {} if p not in required]
            order[function["name"]] = required + optional
    return order


# --- Where to look: the whole reply, then fenced blocks, then markup in the prose between ---

FENCE = re.compile(r"```([^\n`]*)\n(.*?)(?:```|\Z)", re.S)  # no nested repeats: stays linear; text_edits.py reads it too


def _find(text, tools):
    bare = text.strip()
    if bare[:1] in ("{", "["):  # form 6, judged first: markup inside its strings is just data
        calls = json_calls(bare, tools, repair=True)
        if calls:
            return calls
    calls, free_from = [], 0
    for fence in FENCE.finditer(text) if "```" in text else ():
        if len(calls) >= MOST_CALLS:
            return calls[:MOST_CALLS]
        fence_calls = _fence_calls(fence[1], fence[2], tools)
        if fence_calls is None:  # a fence we do not claim: markup inside it is still read
            continue
        calls += markup_calls(text[free_from:fence.start()], tools) + fence_calls
        free_from = fence.end()
    return (calls + markup_calls(text[free_from:], tools))[:MOST_CALLS]


def _fence_calls(info, body, tools):
    """The calls in one fenced block, or None when the block is not ours to judge."""
    label = (info.split() or [""])[0].lower()
    if label == "tool_code":  # form 3: the label says "this is a call", so read it leniently
        return python_calls(body, tools, strict=False) or None
    if label in ("python", "py"):
        # Code the model shows. Calls only if every statement is one (or bare JSON objects, as
        # a 1.5B model writes); otherwise an explained sample, claimed so nothing inside counts.
        if body.lstrip().startswith(("<tools>", "<tool_call>")):  # markup, not Python (seen here)
            return markup_calls(body, tools)
        return python_calls(body, tools, strict=True) or json_calls(body, tools, repair=False)
    if label in ("json", ""):  # form 5
        return json_calls(body, tools, repair=True) or None
    return None  # bash, diff, ...: never calls
