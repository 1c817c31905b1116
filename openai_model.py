"""OpenAIModel: the adapter for OpenAI-compatible servers (llama.cpp, vLLM, LM Studio, Ollama's /v1).

It sends one streamed Chat Completions request through the official `openai` SDK and
yields chunks in Ollama's shape, so agent_loop.py reads them as it reads LocalModel's.
Text and thinking pass through as they arrive; tool calls arrive as fragments keyed by
`index` and are assembled here (`ToolCalls`), then handed over whole on the final chunk.
Every failure becomes local_model's `ModelUnavailable` with one sentence saying what to do,
and chunks of any shape are read field by field, never trusted. As LocalModel, it owns its
options (`recorded()`) and its deadline (`ends_at`, or `with_deadline(seconds)`), which
local_model's `DeadlineTransport` enforces whatever the server sends.

What this file deliberately is not: part of the loop, a retry layer (the SDK's retries are
off: a named stop beats a silent second request), or a fixer of the model's JSON.
"""
import json
import os

import httpx2  # the SDK's own HTTP library: its transport, and telling a connect timeout apart
import openai

from local_model import DeadlineTransport, ModelUnavailable, deadline_in
from loop.tool_checks import quoted, quoted_list

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


def field(value, key, kind):
    """value[key] when value is a dict and that entry is a `kind`, else an empty `kind`:
    a server's chunks are read field by field, whatever shape they arrive in."""
    entry = value.get(key) if isinstance(value, dict) else None
    return entry if isinstance(entry, kind) and not isinstance(entry, bool) else kind()


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


class OpenAIModel:
    """Callable like `chat(messages, tool_schemas)` in agent_loop, over Chat Completions."""

    def __init__(self, model, base_url, *, api_key=None, options=None, timeout=TIMEOUT, ends_at=None):
        """`ends_at`: a time.monotonic() instant no request reads past (None: no deadline)."""
        self.model, self.url, self.api_key = model, base_url.rstrip("/"), api_key
        self.options = {**OPTIONS, **(options or {})}  # as asked, in Ollama's names
        unknown = set(self.options) - set(SENT_AS) - NOT_SENT
        if unknown:
            raise ValueError(f"unknown model options {sorted(unknown)}; known: {sorted(SENT_AS) + sorted(NOT_SENT)}")
        self.sent_options = {SENT_AS[k]: v for k, v in self.options.items() if k in SENT_AS and v is not None}
        if not isinstance(timeout, openai.Timeout):  # a number, or an httpx.Timeout as record_run builds
            timeout = openai.Timeout(**timeout.as_dict()) if hasattr(timeout, "as_dict") else openai.Timeout(timeout)
        self.timeout, self.ends_at = timeout, ends_at
        http = openai.DefaultHttpxClient(transport=DeadlineTransport(httpx2.HTTPTransport(), lambda: self.ends_at))
        # Local servers do not check the key, but the SDK refuses to start without one.
        self.client = openai.OpenAI(base_url=self.url, api_key=api_key or os.environ.get("OPENAI_API_KEY") or "sk-no-key",
                                    timeout=timeout, max_retries=0, http_client=http)
        self.streamed = {}  # what this model streamed, for sending it back unchanged (Turn.streamed)

    def with_deadline(self, seconds):
        """A copy with the same options whose requests end `seconds` from now (None: never),
        for a CLI that checks the model first and starts the run later."""
        timed = OpenAIModel(self.model, self.url, api_key=self.api_key, options=self.options, timeout=self.timeout)
        timed.ends_at = deadline_in(seconds)  # counted once its HTTP client is built: that takes a moment
        return timed

    def recorded(self):
        """What a recording keeps under `settings`: the options exactly as they are sent."""
        return {"options": self.sent_options}

    def __call__(self, messages, tool_schemas):
        """Yield the chunks of one streamed reply; the stream is closed however this ends."""
        stream, position = None, len(messages)  # where the loop will put this turn's message
        try:
            stream = self.client.chat.completions.create(
                model=self.model, messages=to_openai_messages(messages, self.streamed),
                tools=tool_schemas or openai.omit,  # an empty list is an error on some servers
                stream=True, stream_options={"include_usage": True}, **self.sent_options)
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
            answer = self.client.models.with_raw_response.list().http_response
        except FAILURES as error:
            raise ModelUnavailable(self.explain(error, streaming=False)) from error
        served = served_models(answer.text)
        if served is None:
            raise ModelUnavailable(f"{self.url}/models answered {quoted(answer.text)}, which is no list of models: "
                                   "pass the API's own URL as --base-url (it usually ends in /v1)")
        entry = next((e for e in served if e["id"] in (self.model, f"{self.model}:latest")), None)
        if entry is None:
            raise ModelUnavailable(f"model {self.model!r} is not served at {self.url}; "
                                   f"it serves: {quoted_list([e['id'] for e in served]) if served else 'nothing'}")
        return {"name": self.model, "digest": field(entry, "digest", str) or None}

    def explain(self, error, streaming):
        """Turn an SDK or transport error into one sentence a newcomer can act on."""
        url = self.url
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
        if isinstance(error, openai.APIStatusError):
            return f"the server at {url} answered {error.status_code}: {quoted(words(error.body, error.message))}"
        if isinstance(error, openai.APIError):
            return (f"the server at {url} reported an error in the middle of the reply: "
                    f"{quoted(words(error.body, error.message))}")
        return f"the server at {url} sent a reply that is not Chat Completions: {type(error).__name__}: {quoted(str(error))}"


def words(body, otherwise):
    """The server's own words in an error body: {"error": {"message"}}, {"message"}, or the text."""
    inner = body.get("error", body) if isinstance(body, dict) else body
    said = inner.get("message") if isinstance(inner, dict) else inner
    return said if isinstance(said, str) and said else otherwise


def served_models(text):
    """The entries with an id in a /models answer, or None when it is no JSON object at all
    (an HTML page: --base-url points at a web page, not at the API)."""
    try:
        listing = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(listing, dict):
        return None
    return [entry for entry in field(listing, "data", list) if field(entry, "id", str)]
