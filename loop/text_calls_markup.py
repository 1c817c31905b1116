"""Tool calls in the models' own markup, found in prose and read left to right.

Part of text_calls.py, which hands this file the text outside the fenced blocks it claims:

    1. <|tool_call>call:read_file{path:<|"|>x.py<|"|>}<tool_call|>      Gemma 4
    2. call:read_file{path:"x.py"}                                       Gemma 4 behind vLLM
    4. <tool_call>{"name": "read_file", "arguments": {...}}</tool_call>   Hermes / Qwen 2.5
    7. <function=read_file><parameter=path>x.py</parameter></function>    qwen3-coder
    and <tools>...</tools>, the tag a model's prompt lists its tools in (an echo, or calls)

Gemma's and qwen3's syntax is not JSON, so it is read by hand: small regexes that jump from
token to token, and readers that say where to go on from, so unclosed tags are not rescanned
and reading stays linear in the text's length. Markup quoted in `inline code` is prose about a
call, not a call.

What this file deliberately is not: a parser of the chat templates. An unclosed tag or brace
ends where the next one starts, or at the end; JSON inside the tags goes to text_calls_code.py.
"""
import json
import re

from loop.text_calls_code import MOST_CALLS, json_calls, json_prefix, tool_call

# Plain alternatives let `re` skip ahead on the first character; a lookbehind here cost 8x.
# A run of backticks is read too: it may open `inline code`, which is skipped whole.
MARKUP = re.compile(r"<tools>|<tool_call>|<function=|call:|`+")


def markup_calls(segment, tools):
    """Read forms 1, 2, 4 and 7 left to right; each reader says where to go on from."""
    calls, pos = [], 0
    if "<" not in segment and "call:" not in segment:
        return calls
    while len(calls) < MOST_CALLS and (match := MARKUP.search(segment, pos)):
        if match[0].startswith("`"):
            pos = _after_inline_code(segment, match)
            continue
        reader = {"<tools>": _tools_tag, "<tool_call>": _hermes,
                  "<function=": _qwen_function}.get(match[0], _gemma)
        found, pos = reader(segment, match.end(), tools)
        calls += found
    return calls


# Inline code ends at the next run of backticks, if it is as long; a blank line ends it first.
INLINE_END = re.compile(r"`+|\n[ \t]*\n")


def _after_inline_code(text, opener):
    """Where reading goes on after a run of backticks. One or two open inline code when the
    next run is as long: markup inside is quoted in prose, not called. Three or more are a
    fence text_calls.py did not claim (bash, xml, ...): markup inside it is still read."""
    if len(opener[0]) > 2:
        return opener.end()
    closer = INLINE_END.search(text, opener.end())
    # Only up to the next run is searched, so each stretch of text is searched once: linear.
    return closer.end() if closer and closer[0] == opener[0] else opener.end()


def _tools_tag(text, pos, tools):
    """<tools>...</tools>: usually the model repeating its tool list (an echo, never a call);
    Qwen2.5-Coder-1.5B here also wrapped real calls in it: {"name": ..., "arguments": ...}."""
    end = text.find("</tools>", pos)
    end = len(text) if end < 0 else end
    return json_calls(text[pos:end].strip(), tools, repair=False), min(len(text), end + len("</tools>"))


# --- Form 4: Hermes / Qwen 2.5, a JSON object inside <tool_call> tags ---

HERMES_END = re.compile(r"</tool_call>|<tool_call>")


def _hermes(text, pos, tools):
    """<tool_call>{json}</tool_call>; a missing closer ends at the next opener or at the end."""
    if not re.match(r"\s*[{\[]", text[pos:pos + 200]):
        return [], pos  # not JSON (qwen3-coder's <function=...> may follow): read on
    end = HERMES_END.search(text, pos)
    end = end.start() if end else len(text)
    after = end + len("</tool_call>") if text.startswith("</tool_call>", end) else end
    return json_calls(text[pos:end].strip(), tools, repair=True), after


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
    found = [tool_call(name[1], _gemma_arguments(text[start:end]))] if name[1] in tools else []
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
        elif body.startswith('"', value_at) and (decoded := json_prefix(body, value_at)):
            args[key[1]], pos = decoded
        else:
            comma = body.find(",", value_at)
            pos = len(body) if comma < 0 else comma
            args[key[1]] = _bare_value(body[value_at:pos].strip())
    # Anything left over that is not a key:value pair means we misread it: hand back the text.
    return args if not body[pos:].strip(" \t\r\n,") else body.strip()


def _bare_value(token):
    if not re.match(r"-?\d|true|false|null", token):  # no exception for every word: cheaper
        return token  # Gemma behind vLLM leaves strings unquoted: content:hello
    try:
        return json.loads(token)  # 42, -1.5, true, null
    except (ValueError, RecursionError):
        return token  # 3rd, nullable


# --- Form 7: qwen3-coder, <function=NAME><parameter=KEY>value</parameter></function> ---

QWEN_END = re.compile(r"</function>|</tool_call>|<function=")
# A key stops at the next "<": an unclosed `<parameter=x` never scans the rest of the text.
QWEN_PARAMETER = re.compile(r"<parameter=([^<>\s]+)>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.S)


def _qwen_function(text, pos, tools):
    name = re.match(r"([^<>\s]+)>", text[pos:pos + 200])  # a bounded look that stops at the next tag
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
    return [tool_call(name[1], args if args or not body.strip() else body.strip())], after
