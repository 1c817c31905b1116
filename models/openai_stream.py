"""Reading a Chat Completions stream into Ollama-shaped chunks, and the loop's history back into
Chat Completions messages: openai_model.py's wire work, apart, so the adapter reads as the
request it makes.

`Turn` folds one stream's chunks: text and thinking go on at once, tool calls arrive as
fragments keyed by `index` (`ToolCalls`) and are handed over whole on the final chunk.
`to_openai_messages` gives assistant calls ids and JSON-text arguments, and each tool message
the id of the call it answers; each call goes back exactly as it streamed, so the server's
prompt cache keeps matching. Chunks of any shape are read field by field, never trusted.

What this file deliberately is not: an HTTP client (openai_model.py sends the request) or a
fixer of the model's JSON.
"""
import json

from loop.tool_checks import nests_too_deep
from models.adapter_http import UNREADABLE_CALL

# Any other finish reason (content_filter) is passed on as the server said it.
DONE_REASONS = {"stop": "stop", "tool_calls": "stop", "function_call": "stop", "length": "length"}


def canonical(arguments):
    """One text per parsed value, whatever spacing or key order the model streamed."""
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def field(value, key, kind):
    """value[key] when value is a dict and that entry is a `kind`, else an empty `kind`:
    a server's chunks are read field by field, whatever shape they arrive in."""
    entry = value.get(key) if isinstance(value, dict) else None
    return entry if isinstance(entry, kind) and not isinstance(entry, bool) else kind()


def parse_arguments(text):
    """Arguments as an object; "" or nothing means none; anything else stays the raw text,
    so the loop answers it with an error result the model can read. So does an object nested
    too deep: past about 1,000 levels json raises RecursionError, which must not end the run,
    and well before that no tool takes it (tool_checks.MAX_NESTING)."""
    try:
        value = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        return text
    return value if isinstance(value, dict) and not nests_too_deep(value) else text


def _as_text(arguments):
    """Arguments a server sent as an object (not the JSON text the API says), as JSON text."""
    try:
        return json.dumps(arguments)
    except RecursionError:  # the SDK decoded it a few frames up; writing it here went deeper
        return UNREADABLE_CALL["function"]["arguments"]


class ToolCalls:
    """Assemble streamed tool-call deltas into whole calls, keyed by `index`."""

    def __init__(self):
        self.calls = []     # [{"id", "name", "parts"}] in the order they began
        self.at_index = {}  # stream index -> position in self.calls

    def add(self, part):
        if not isinstance(part, dict):
            return
        index, call_id, function = field(part, "index", int), field(part, "id", str), field(part, "function", dict)
        known = self.calls[self.at_index[index]] if index in self.at_index else None
        # A new id at an occupied index is a new call (Ollama once reused index 0 for all);
        # the same id again on every delta (LM Studio) is not.
        if known is None or (call_id and known["id"] and call_id != known["id"]):
            self.at_index[index] = len(self.calls)
            known = {"id": None, "name": "", "parts": []}
            self.calls.append(known)
        known["id"] = known["id"] or call_id
        # Some servers repeat the whole name on every delta and some send "" later:
        # the first non-empty name is the name, never a concatenation.
        known["name"] = known["name"] or field(function, "name", str)
        arguments = function.get("arguments")
        if arguments is not None:  # missing or null: nothing to add (a tool without parameters)
            known["parts"].append(arguments if isinstance(arguments, str) else _as_text(arguments))

    def add_unreadable(self):
        """One more call, for the chunk the SDK could not decode (adapter_http.UNREADABLE_CALL)."""
        self.calls.append({"id": None, "name": "", "parts": [UNREADABLE_CALL["function"]["arguments"]]})

    def whole(self):
        """[{"id", "name", "raw", "arguments"}]: the text joined once, exactly as streamed, and parsed."""
        whole = [{"id": c["id"], "name": c["name"], "raw": "".join(c["parts"])} for c in self.calls]
        return [{**call, "arguments": parse_arguments(call["raw"])} for call in whole]


class Turn:
    """Fold one stream's chunks: text goes on at once, calls and counts wait for the end."""

    def __init__(self):
        self.calls, self.finish, self.usage, self.timings = ToolCalls(), None, {}, {}

    def add(self, chunk):
        """Take one chunk dict; return the Ollama-shaped chunk to pass on now, or None."""
        self.usage = field(chunk, "usage", dict) or self.usage
        self.timings = field(chunk, "timings", dict) or self.timings
        choices = field(chunk, "choices", list)  # the usage chunk after the finish has none
        choice = choices[0] if choices else {}
        delta = field(choice, "delta", dict)
        for part in field(delta, "tool_calls", list):
            self.calls.add(part)
        self.finish = field(choice, "finish_reason", str) or self.finish
        content = field(delta, "content", str)
        # Some servers send the same thinking under both names: take one.
        thinking = field(delta, "reasoning_content", str) or field(delta, "reasoning", str)
        message = {"role": "assistant", "content": content}
        if thinking:
            message["thinking"] = thinking
        return {"message": message, "done": False} if content or thinking else None

    def unreadable(self):
        """A chunk the SDK could not decode ended the stream: the turn ends with that call."""
        self.calls.add_unreadable()
        self.finish = "tool_calls"

    def done(self):
        """The final chunk: whole calls with parsed arguments, the reason, the counts."""
        message, calls = {"role": "assistant", "content": ""}, self.calls.whole()
        if calls:
            message["tool_calls"] = [{"function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]
        chunk = {"message": message, "done": True, "done_reason": DONE_REASONS.get(self.finish, self.finish)}
        details = field(self.usage, "prompt_tokens_details", dict)
        counts = {"prompt_eval_count": self.usage.get("prompt_tokens"),
                  "eval_count": self.usage.get("completion_tokens"),
                  # OpenAI's field, else llama.cpp's: how much of the prompt its cache matched.
                  "cached_prompt_tokens": details.get("cached_tokens", self.timings.get("cache_n")),
                  "evaluated_prompt_tokens": self.timings.get("prompt_n")}
        return {**chunk, **{key: value for key, value in counts.items() if type(value) is int}}

    def streamed(self, position):
        """What to_openai_messages needs to send the calls back as they came, keyed by place:
        (position of the message, index of the call) -> (id, name, canonical arguments, raw text
        or None where it was no JSON object: a server may refuse to render broken JSON)."""
        return {(position, k): (c["id"], c["name"], canonical(c["arguments"]),
                                c["raw"] if isinstance(c["arguments"], dict) and c["raw"].strip() else None)
                for k, c in enumerate(self.calls.whole())}


def to_openai_messages(messages, streamed=None):
    """The loop's Ollama-shaped history as Chat Completions messages: calls get ids and
    JSON-text arguments, and each tool message the id of the call it answers, in order."""
    sent, unanswered = [], []
    for position, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            if not unanswered:
                raise ValueError(f"message {position} is a tool result that answers no call")
            sent.append({"role": "tool", "tool_call_id": unanswered.pop(0), "content": message.get("content", "")})
        elif role == "assistant":
            # Thinking is not sent back: Chat Completions has no standard field for it, and
            # chat templates drop earlier turns' reasoning anyway.
            calls = [_sent_call(position, k, call, streamed or {})
                     for k, call in enumerate(message.get("tool_calls") or [])]
            sent.append({"role": "assistant", "content": message.get("content") or ""})
            if calls:
                sent[-1]["tool_calls"] = calls
            unanswered = [call["id"] for call in calls]
        else:
            sent.append(dict(message))
    return sent


def _sent_call(position, k, call, streamed):
    """One call as the server should see it again: as streamed when the adapter streamed
    it (same id, byte-identical arguments), so the server's prompt cache still matches."""
    function = call.get("function") or {}
    name, arguments = function.get("name") or "", function.get("arguments")
    call_id, streamed_name, streamed_arguments, raw = streamed.get((position, k), (None,) * 4)
    if (streamed_name, streamed_arguments) != (name, canonical(arguments)) or raw is None:
        # Not streamed here (a replayed or edited history, a call recovered from text), or
        # not streamed as a JSON object (the loop sends {} for those): valid JSON all the same.
        raw = json.dumps(arguments if isinstance(arguments, dict) else {}, ensure_ascii=False)
    # Without a streamed id, one that depends only on the call's place: every request repeats it.
    return {"id": call_id or f"call_{position}_{k}", "type": "function", "function": {"name": name, "arguments": raw}}
