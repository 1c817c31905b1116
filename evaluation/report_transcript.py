"""One attempt's transcript as HTML: each turn's thinking, text, tool calls and nudges, in order.

report_attempt.py puts it in an attempt's section. A tool call is shown the way a person reads
it, not as JSON: a `replace_text` as a small diff of `old` against `new`, other arguments as
`name: value`, the result in one line and long output folded. The model's text keeps its
paragraphs, and its ``` blocks are shown as code.

Every block is cut (html_parts.cut) and the whole transcript has a budget: past
TRANSCRIPT_CHARS of HTML, the remaining turns are only counted, and the note names the
attempt's file. `where` is that file's path as the page's reader would open it.

What this file deliberately is not: a replay (replay.py is) or a judge of the calls.
"""
import json

from evaluation.html_parts import NAME_CHARS, block, e, edit_block, prose
from command_line.printer import result_line

TRANSCRIPT_CHARS = 200_000  # of HTML per attempt: about forty full blocks
INLINE_CHARS = 80           # a one-line argument up to this long stays on the call's line


def render_transcript(events, where):
    """Events in order, grouped by turn: thinking (folded), text, then tool calls and nudges."""
    turns = {}
    # A deadline can stop a run between a tool_start and its tool_result: show those starts too.
    answered = {_key(event) for event in events if event.get("type") == "tool_result"}
    for event in events:
        kind = event.get("type")
        turn = turns.setdefault(_key(event)[0], {"thinking": [], "text": [], "items": []})
        if kind in ("thinking_delta", "text_delta"):
            turn["thinking" if kind == "thinking_delta" else "text"].append(str(event.get("text", "")))
        elif kind in ("tool_result", "nudge") or kind == "tool_start" and _key(event) not in answered:
            turn["items"].append(event)
    out, used = ["<h3>Transcript</h3>"], 0
    for n, (number, turn) in enumerate(turns.items()):
        if used > TRANSCRIPT_CHARS:  # a budget for the page, not for the attempt file
            out.append(f'<p class="cut">… {len(turns) - n} more turns not shown; '
                       f"the whole transcript is in {e(where)}</p>")
            break
        out.append(_turn(number, turn, where))
        used += len(out[-1])
    return "".join(out)


def _key(event):
    """(turn, index) of an event, as text: a recording's odd values still group and compare."""
    return str(event.get("turn")), str(event.get("index"))


def _turn(number, turn, where):
    """One turn: its thinking folded away, its text, then what the harness did with it."""
    out = f"<h4>turn {e(number)}</h4>"
    if turn["thinking"]:
        out += f"<details><summary>thinking</summary>{block(''.join(turn['thinking']), where)}</details>"
    if turn["text"]:
        out += prose("".join(turn["text"]), where)
    return out + "".join(_nudge(item, where) if item.get("type") == "nudge" else _tool(item, where)
                         for item in turn["items"])


def _nudge(event, where):
    """A correction the loop sent the model, in the loop's words."""
    return f'<div class="nudge"><p>nudge ({e(event.get("kind"))}):</p>{prose(event.get("text", ""), where)}</div>'


def _tool(event, where):
    """A tool call with its result in one line; long output (tests, files) folded."""
    how = (' <span class="tag">written as text</span>' if event.get("written_as_text") else
           ' <span class="tag">by the harness</span>' if event.get("by_harness") else "")
    inline, blocks = _arguments(event.get("name"), event.get("arguments"), where)
    call = f"<p><code>{e(event.get('name'))}</code>{how}{inline}</p>{blocks}"
    result = event.get("result")
    if not isinstance(result, dict):
        return f'<div class="tool">{call}<p class="error">no result (the run stopped first)</p></div>'
    # printer.clean works per character: cut the fields result_line shows before it cleans them.
    short = {key: value[:NAME_CHARS] if isinstance(value, str) and key != "text" else value
             for key, value in result.items()}
    line = f"<p class=\"{'error' if 'error' in result else ''}\">→ {e(result_line(short))}</p>"
    body = result.get("output", result.get("text"))
    folded = f"<details><summary>output</summary>{block(body, where)}</details>" if body is not None else ""
    return f'<div class="tool">{call}{line}{folded}</div>'


def _arguments(name, arguments, where):
    """(short arguments for the call's line, blocks for long ones), both HTML. A replace_text's
    `old` and `new` become one diff; anything else is `key: value`, strings as written."""
    if arguments in (None, {}, ""):
        return "", ""
    if not isinstance(arguments, dict):  # arguments that were not an object: shown as they came
        return "", block(_readable(arguments), where)
    rest, blocks = dict(arguments), []
    if name == "replace_text" and isinstance(rest.get("old"), str) and isinstance(rest.get("new"), str):
        blocks.append(edit_block(rest.pop("old"), rest.pop("new"), where))
    inline = []
    for key, value in rest.items():
        text = _readable(value)
        if "\n" in text or len(text) > INLINE_CHARS:
            blocks.insert(0, f"<p>{e(key)}:</p>{block(text, where)}")
        else:
            inline.append(f" {e(key)}: <code>{e(text)}</code>")
    return "".join(inline), "".join(blocks)


def _readable(value):
    """A value as a person reads it: a string as written, anything else as JSON (or its repr)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, indent=1, default=repr)
    except (ValueError, RecursionError):  # a cycle or absurd nesting: say so
        return f"<a {type(value).__name__} that cannot be shown as JSON>"
