"""OpenAIModel: the adapter for OpenAI-compatible servers (llama.cpp, vLLM, LM Studio, Ollama's /v1).

It sends one streamed Chat Completions request through the official `openai` SDK and
yields chunks in Ollama's shape, so agent_loop.py reads them as it reads LocalModel's.
Text and thinking pass through as they arrive; tool calls arrive as fragments keyed by
`index` and are assembled here (`ToolCalls`), then handed over whole on the final chunk.
Every failure becomes local_model's `ModelUnavailable` with one sentence saying what to do.

What this file deliberately is not: part of the loop, a retry layer (the SDK's retries are
off: a named stop beats a silent second request), or a fixer of the model's JSON.
"""
import json
import os

import httpx2  # the SDK's own transport, only to tell a connect timeout from a read timeout
import openai

from local_model import ModelUnavailable, read_timeout

# The Ollama option names the harness uses, with the defaults LocalModel uses.
OPTIONS = {"temperature": 0, "seed": 7, "num_predict": 2048}
SENT_AS = {"temperature": "temperature", "seed": "seed", "num_predict": "max_tokens"}
# The context size is fixed when the server starts (`llama-server -c N`); this API has no
# per-request field for it, so it is accepted and not sent.
NOT_SENT = {"num_ctx"}
# Any other finish reason (content_filter) is passed on as the server said it.
DONE_REASONS = {"stop": "stop", "tool_calls": "stop", "function_call": "stop", "length": "length"}
# As LocalModel: a stalled server must not hang a run; `read` is the longest silence allowed.
TIMEOUT = openai.Timeout(connect=5.0, read=300.0, write=30.0, pool=5.0)
FAILURES = (openai.OpenAIError, json.JSONDecodeError)
START_ONE = ("start one (`llama-server -m MODEL.gguf --jinja`, LM Studio's local server, or `vllm serve MODEL`) "
             "or pass the right --base-url")


def canonical(arguments):
    """One text per parsed value, whatever spacing or key order the model streamed."""
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parse_arguments(text):
    """Arguments as an object; "" or nothing means none; anything else stays the raw text,
    so the loop answers it with an error result the model can read."""
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


class ToolCalls:
    """Assemble streamed tool-call deltas into whole calls, keyed by `index`."""

    def __init__(self):
        self.calls = []     # [{"id", "name", "parts"}] in the order they began
        self.at_index = {}  # stream index -> position in self.calls

    def add(self, part):
        if not isinstance(part, dict):
            return
        index, call_id = part.get("index") if isinstance(part.get("index"), int) else 0, part.get("id")
        function = part.get("function") if isinstance(part.get("function"), dict) else {}
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
        known["name"] = known["name"] or function.get("name") or ""
        arguments = function.get("arguments")
        if arguments is not None:  # missing or null: nothing to add (a tool without parameters)
            known["parts"].append(arguments if isinstance(arguments, str) else json.dumps(arguments))

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
        self.usage = chunk.get("usage") if isinstance(chunk.get("usage"), dict) else self.usage
        self.timings = chunk.get("timings") if isinstance(chunk.get("timings"), dict) else self.timings
        choices = chunk.get("choices") or [{}]  # the usage chunk after the finish has none
        choice = choices[0] if isinstance(choices[0], dict) else {}
        delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
        for part in delta.get("tool_calls") or []:
            self.calls.add(part)
        reason = choice.get("finish_reason")
        self.finish = reason if isinstance(reason, str) and reason else self.finish
        # Some servers send the same thinking under both names: take one.
        content, thinking = delta.get("content"), delta.get("reasoning_content") or delta.get("reasoning")
        message = {"role": "assistant", "content": content if isinstance(content, str) else ""}
        if isinstance(thinking, str) and thinking:
            message["thinking"] = thinking
        return {"message": message, "done": False} if message["content"] or "thinking" in message else None

    def done(self):
        """The final chunk: whole calls with parsed arguments, the reason, the counts."""
        message, calls = {"role": "assistant", "content": ""}, self.calls.whole()
        if calls:
            message["tool_calls"] = [{"function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]
        chunk = {"message": message, "done": True, "done_reason": DONE_REASONS.get(self.finish, self.finish)}
        details = self.usage.get("prompt_tokens_details") or {}
        counts = {"prompt_eval_count": self.usage.get("prompt_tokens"),
                  "eval_count": self.usage.get("completion_tokens"),
                  # OpenAI's field, else llama.cpp's: how much of the prompt its cache matched.
                  "cached_prompt_tokens": details.get("cached_tokens", self.timings.get("cache_n")),
                  "evaluated_prompt_tokens": self.timings.get("prompt_n")}
        return {**chunk, **{key: value for key, value in counts.items() if isinstance(value, int)}}

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


class OpenAIModel:
    """Callable like `chat(messages, tool_schemas)` in agent_loop, over Chat Completions."""

    ends_at = None  # set to a time.monotonic() value: no request reads past it (--deadline)

    def __init__(self, model, base_url, *, api_key=None, options=None, timeout=TIMEOUT):
        self.model, self.base_url = model, base_url.rstrip("/")
        self.options = {**OPTIONS, **(options or {})}  # as asked, in Ollama's names
        unknown = set(self.options) - set(SENT_AS) - NOT_SENT
        if unknown:
            raise ValueError(f"unknown model options {sorted(unknown)}; known: {sorted(SENT_AS) + sorted(NOT_SENT)}")
        self.sent_options = {SENT_AS[k]: v for k, v in self.options.items() if k in SENT_AS and v is not None}
        if not isinstance(timeout, openai.Timeout):  # a number, or an httpx.Timeout as record_run builds
            timeout = openai.Timeout(**timeout.as_dict()) if hasattr(timeout, "as_dict") else openai.Timeout(timeout)
        self.timeout = timeout
        # Local servers do not check the key, but the SDK refuses to start without one.
        api_key = api_key or os.environ.get("OPENAI_API_KEY") or "sk-no-key"
        self.client = openai.OpenAI(base_url=self.base_url, api_key=api_key, timeout=timeout, max_retries=0)
        self.streamed = {}  # what this model streamed, for sending it back unchanged (Turn.streamed)

    def __call__(self, messages, tool_schemas):
        """Yield the chunks of one streamed reply; the stream is closed however this ends."""
        stream, position = None, len(messages)  # where the loop will put this turn's message
        try:
            stream = self.client.chat.completions.create(
                model=self.model, messages=to_openai_messages(messages, self.streamed),
                tools=tool_schemas or openai.omit,  # an empty list is an error on some servers
                stream=True, stream_options={"include_usage": True}, **self.sent_options,
                timeout=openai.Timeout(**{**self.timeout.as_dict(), "read": read_timeout(self.timeout, self.ends_at)}))
            turn = Turn()
            for chunk in stream:  # read past the finish: llama.cpp sends the usage after it
                # The SDK does not validate chunks: whatever the server sent, read it as a dict.
                piece = turn.add(chunk.to_dict(warnings=False) if isinstance(chunk, openai.BaseModel) else {})
                if piece is not None:
                    yield piece
            if turn.finish is None:
                return  # no finish reason: cut off, so no done chunk and the loop runs nothing
            self.streamed.update(turn.streamed(position))
            yield turn.done()
        except FAILURES as error:
            raise ModelUnavailable(self.explain(error, streaming=stream is not None)) from error
        finally:
            if stream is not None:
                stream.close()

    def check(self):
        """Before a run: return {"name", "digest"} or raise ModelUnavailable."""
        try:
            served = [entry.to_dict() for entry in self.client.models.list()]
        except FAILURES as error:
            raise ModelUnavailable(self.explain(error, streaming=False)) from error
        entry = next((e for e in served if e.get("id") in (self.model, f"{self.model}:latest")), None)
        if entry is None:
            raise ModelUnavailable(f"model {self.model!r} is not served at {self.base_url}; "
                                   f"it serves: {', '.join(e.get('id', '?') for e in served) or 'nothing'}")
        return {"name": self.model, "digest": entry.get("digest")}

    def explain(self, error, streaming):
        """Turn an SDK or transport error into one sentence a newcomer can act on."""
        url = self.base_url
        if isinstance(error, openai.APITimeoutError) and not isinstance(error.__cause__, httpx2.ConnectTimeout):
            return f"the server at {url} sent nothing for {self.timeout.read or 0:g} s; the model may be too slow here"
        if isinstance(error, openai.APIConnectionError) and not streaming:
            return f"no OpenAI-compatible server answers at {url}: {START_ONE}"
        if isinstance(error, openai.APIConnectionError):
            return f"the stream from {url} was cut off in the middle of the reply ({error.__cause__ or error})"
        if isinstance(error, openai.NotFoundError) and not error.request.url.path.endswith("/models"):
            self.check()  # a chat's 404 is mostly an unknown model: this raises, naming the served ones
        if isinstance(error, openai.NotFoundError):
            return f"{url} answered 404 for {error.request.url.path}, so it is no OpenAI-compatible API: {START_ONE}"
        if isinstance(error, openai.APIStatusError):  # the server's words: {"error": {"message"}} or the body
            body = error.body.get("error", error.body) if isinstance(error.body, dict) else error.body
            words = body.get("message") if isinstance(body, dict) else body
            return f"the server at {url} answered {error.status_code}: {words}"
        if isinstance(error, openai.APIError):
            return f"the server at {url} reported an error in the middle of the reply: {error.message}"
        return f"the server at {url} sent a reply that is not Chat Completions: {type(error).__name__}: {error}"
