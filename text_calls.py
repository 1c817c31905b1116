"""Recover tool calls that a small local model wrote into its text instead of the tool-call field.

`find_text_calls(text, schemas)` returns them in Ollama's call shape, in order of appearance.
The forms, numbered as in SPEC.md ("Malformed turns and tool calls written as text"):

    1. <|tool_call>call:read_file{path:<|"|>x.py<|"|>}<tool_call|>      Gemma 4
    2. call:read_file{path:"x.py"}                                       Gemma 4 behind vLLM
    3. ```tool_code  read_file(path="x.py")  ```                         Gemma, Python syntax
    4. <tool_call>{"name": "read_file", "arguments": {...}}</tool_call>   Hermes / Qwen 2.5
    5. ```json  {"name": "read_file", "arguments": {...}}  ```            many small models
    6. {"name": "read_file", "parameters": {...}}  as the whole reply     qwen2.5-coder, llama3.1
    7. <function=read_file><parameter=path>x.py</parameter></function>    qwen3-coder
    and ```python blocks in which every statement is a bare tool call    Qwen2.5-Coder-1.5B

What this file deliberately is not: a general parser of model output, or a judge of whether a
call is wise. It runs nothing, evaluates no code (`ast.literal_eval` only), knows only the tool
names it is given, and never raises on a str. Prose, inline `code`, Python samples the model
explains and echoes of the tool schema are not calls.
"""
import ast
import json
import re


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


def _call(name, arguments):
    return {"function": {"name": name, "arguments": arguments}}


# --- Where to look: the whole reply, then fenced blocks, then markup in the prose between ---

FENCE = re.compile(r"```([^\n`]*)\n(.*?)(?:```|\Z)", re.S)  # no nested repeats: stays linear
# Plain alternatives let `re` skip ahead on the first character; a lookbehind here cost 8x.
MARKUP = re.compile(r"<tools>|<tool_call>|<function=|call:")


def _find(text, tools):
    bare = text.strip()
    if bare[:1] in ("{", "["):  # form 6, judged first: markup inside its strings is just data
        calls = _json_calls(bare, tools, repair=True)
        if calls:
            return calls
    calls, free_from = [], 0
    for fence in FENCE.finditer(text) if "```" in text else ():
        fence_calls = _fence_calls(fence[1], fence[2], tools)
        if fence_calls is None:  # a fence we do not claim: markup inside it is still read
            continue
        calls += _markup_calls(text[free_from:fence.start()], tools) + fence_calls
        free_from = fence.end()
    return calls + _markup_calls(text[free_from:], tools)


def _fence_calls(info, body, tools):
    """The calls in one fenced block, or None when the block is not ours to judge."""
    label = (info.split() or [""])[0].lower()
    if label == "tool_code":  # form 3: the label says "this is a call", so read it leniently
        return _python_calls(body, tools, strict=False) or None
    if label in ("python", "py"):
        # Code the model shows. Calls only if every statement is one (or bare JSON objects, as
        # a 1.5B model writes); otherwise an explained sample, claimed so nothing inside counts.
        if body.lstrip().startswith(("<tools>", "<tool_call>")):  # markup, not Python (seen here)
            return _markup_calls(body, tools)
        return _python_calls(body, tools, strict=True) or _json_calls(body, tools, repair=False)
    if label in ("json", ""):  # form 5
        return _json_calls(body, tools, repair=True) or None
    return None  # bash, diff, ...: never calls


def _markup_calls(segment, tools):
    """Read forms 1, 2, 4 and 7 left to right; each reader says where to go on from."""
    calls, pos = [], 0
    if "<" not in segment and "call:" not in segment:
        return calls
    while match := MARKUP.search(segment, pos):
        reader = {"<tools>": _tools_tag, "<tool_call>": _hermes,
                  "<function=": _qwen_function}.get(match[0], _gemma)
        found, pos = reader(segment, match.end(), tools)
        calls += found
    return calls


def _tools_tag(text, pos, tools):
    """<tools>...</tools>: usually the model repeating its tool list (an echo, never a call);
    Qwen2.5-Coder-1.5B here also wrapped real calls in it: {"name": ..., "arguments": ...}."""
    end = text.find("</tools>", pos)
    end = len(text) if end < 0 else end
    return _json_calls(text[pos:end].strip(), tools, repair=False), min(len(text), end + len("</tools>"))


# --- Forms 1 and 2: Gemma 4, call:NAME{key:<|"|>text<|"|>,n:42} with or without the wrapper ---

GEMMA_TOKEN = re.compile(r'<\|"\|>|"|[{}]|<tool_call\|>|<\|tool_call>')
GEMMA_KEY = re.compile(r'[\s,]*([^\s:,{}"<]+)\s*:\s*')


def _gemma(text, pos, tools):
    before = text[pos - 6:pos - 5]  # the character before "call:": in "recall:" it is a word
    name = re.match(r"([A-Za-z_][\w.-]*)\s*\{", text[pos:pos + 200])
    if not name or before.isalnum() or before == "_":
        return [], pos
    start = pos + name.end()
    end = _gemma_body_end(text, start)
    after = end + 1 if text.startswith("}", end) else end
    after += len("<tool_call|>") if text.startswith("<tool_call|>", after) else 0
    found = [_call(name[1], _gemma_arguments(text[start:end]))] if name[1] in tools else []
    return found, after


def _gemma_body_end(text, start):
    """Where the brace before `start` closes, jumping from token to token."""
    depth, quote = 1, None
    for token in GEMMA_TOKEN.finditer(text, start):
        kind = token[0]
        if kind in ("<tool_call|>", "<|tool_call>"):
            return token.start()  # a wrapper edge ends the body, even inside an unclosed quote
        if quote:
            escaped = kind == '"' and text[token.start() - 1] == "\\"
            quote = None if kind == quote and not escaped else quote
        elif kind in ('"', '<|"|>'):
            quote = kind
        else:
            depth += 1 if kind == "{" else -1
            if depth == 0:
                return token.start()
    return len(text)  # never closed: like Ollama's repair, take the rest


def _gemma_arguments(body):
    """Bare keys; values in <|"|> or JSON quotes, or bare (42, true, hello); else the raw text."""
    args, pos = {}, 0
    while key := GEMMA_KEY.match(body, pos):
        value_at = key.end()
        if body.startswith('<|"|>', value_at):
            close = body.find('<|"|>', value_at + 5)
            close = len(body) if close < 0 else close  # unclosed: Ollama repairs it this way too
            args[key[1]], pos = body[value_at + 5:close], close + 5
        elif body.startswith('"', value_at) and (decoded := _json_prefix(body, value_at)):
            args[key[1]], pos = decoded
        else:
            comma = body.find(",", value_at)
            pos = len(body) if comma < 0 else comma
            args[key[1]] = _bare_value(body[value_at:pos].strip())
    # Anything left over that is not a key:value pair means we misread it: hand back the text.
    return args if not body[pos:].strip(" \t\r\n,") else body.strip()


def _bare_value(token):
    try:
        return json.loads(token)  # 42, true, null
    except (ValueError, RecursionError):
        return token  # Gemma behind vLLM leaves strings unquoted: content:hello


# --- Forms 4, 5 and 6: JSON objects {"name": ..., "arguments" or "parameters": {...}} ---

DECODER = json.JSONDecoder()
HERMES_END = re.compile(r"</tool_call>|<tool_call>")
SEPARATORS = re.compile(r"[\s,]*")


def _hermes(text, pos, tools):
    """<tool_call>{json}</tool_call>; a missing closer ends at the next opener or at the end."""
    if not re.match(r"\s*[{\[]", text[pos:pos + 200]):
        return [], pos  # not JSON (qwen3-coder's <function=...> may follow): read on
    end = HERMES_END.search(text, pos)
    end = end.start() if end else len(text)
    after = end + len("</tool_call>") if text.startswith("</tool_call>", end) else end
    return _json_calls(text[pos:end].strip(), tools, repair=True), after


def _json_calls(text, tools, repair):
    """Calls from one JSON value, a list of them, or several in a row. repair: see below."""
    values, pos = [], SEPARATORS.match(text).end()
    while pos < len(text):
        decoded = _json_prefix(text, pos)
        if decoded is None:
            return _broken_json_call(text, tools) if repair else []
        value, pos = decoded
        values += value if isinstance(value, list) else [value]
        pos = SEPARATORS.match(text, pos).end()
    return [call for value in values if (call := _call_from_object(value, tools))]


def _json_prefix(text, pos):
    try:
        return DECODER.raw_decode(text, pos)
    except (ValueError, RecursionError):  # bad JSON, too-long ints, nesting too deep
        return None


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
        decoded = _json_prefix(args.strip(), 0)
        args = decoded[0] if decoded and isinstance(decoded[0], dict) else args
    elif args is None:
        args = {}  # a tool without parameters: {"name": "run_tests"}
    elif not isinstance(args, dict):
        args = json.dumps(args)
    return _call(name, args)


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
    decoded = _json_prefix(raw, 0)  # only the outer brace missing? then the arguments are fine
    return [_call(name[1], decoded[0] if decoded and isinstance(decoded[0], dict) else raw)]


# --- Form 7: qwen3-coder, <function=NAME><parameter=KEY>value</parameter></function> ---

QWEN_END = re.compile(r"</function>|</tool_call>|<function=")
QWEN_PARAMETER = re.compile(r"<parameter=([^>\s]+)>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.S)


def _qwen_function(text, pos, tools):
    name = re.match(r"([^>\s]+)>", text[pos:pos + 200])  # a bounded look: no rescans
    if not name:
        return [], pos
    start = pos + name.end()
    end = QWEN_END.search(text, start)
    end = end.start() if end else len(text)
    after = end + len("</function>") if text.startswith("</function>", end) else end
    if name[1] not in tools:
        return [], after
    body = text[start:end]
    # Values are strings; the template puts each on its own line, so drop one newline each side.
    args = {key: value.removeprefix("\n").removesuffix("\n")
            for key, value in QWEN_PARAMETER.findall(body)}
    return [_call(name[1], args if args or not body.strip() else body.strip())], after


# --- Form 3 and python blocks: Python call syntax, read with ast, never run ---

def _python_calls(code, tools, strict):
    """strict (python blocks): every statement must be a bare call of a known tool.
    Lenient (tool_code blocks): every known-tool call anywhere, e.g. print(api.read_file(...))."""
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
        nodes = sorted((node for node in ast.walk(tree) if isinstance(node, ast.Call)
                        and _function_name(node) in tools), key=lambda n: (n.lineno, n.col_offset))
    return [_call(_function_name(node), _python_arguments(node, tools[_function_name(node)]))
            for node in nodes]


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
            return [_call(match[1], code[match.end():].strip().removesuffix(")").strip())]
    return []
