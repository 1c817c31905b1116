"""OpenAIModel: the adapter for OpenAI-compatible servers (llama.cpp, vLLM, LM Studio, Ollama's /v1).

It sends one streamed Chat Completions request through the official `openai` SDK and
yields chunks in Ollama's shape, so agent_loop.py reads them as it reads LocalModel's.
Text and thinking pass through as they arrive; tool calls arrive as fragments keyed by
`index` and are assembled (models/openai_stream.py), then handed over whole on the final chunk.
Every failure becomes local_model's `ModelUnavailable` with one sentence saying what to do,
and chunks of any shape are read field by field, never trusted. As LocalModel, it owns its
options (`recorded()`) and its deadline (`ends_at`, or `with_deadline(seconds)`), which
models/adapter_http.py's `DeadlineTransport` enforces whatever the server sends.

What this file deliberately is not: part of the loop, a retry layer (the SDK's retries are
off: a named stop beats a silent second request), or a fixer of the model's JSON.
"""
import json
import os

import httpx2  # the SDK's own HTTP library: its transport, and telling a connect timeout apart
import openai

from loop.tool_checks import quoted, quoted_list
from models.adapter_http import DeadlineTransport, ModelUnavailable, deadline_in, plain_transport, unavailable
from models.openai_stream import Turn, field, to_openai_messages  # noqa: F401 - to_openai_messages is this adapter's too

# The options this adapter takes, in Ollama's names as every adapter takes them: the Chat
# Completions field each is sent as, and its default (LocalModel's). The context size is fixed
# when the server starts (`llama-server -c N`); this API has no per-request field for it, so it
# is taken and not sent.
OPTIONS = {"temperature": ("temperature", 0), "seed": ("seed", 7), "num_predict": ("max_tokens", 2048),
           "num_ctx": (None, None)}
# As LocalModel: a stalled server must not hang a run; `read` is the longest silence allowed.
TIMEOUT = openai.Timeout(connect=5.0, read=300.0, write=30.0, pool=5.0)
FAILURES = (openai.OpenAIError, json.JSONDecodeError)
START_ONE = ("start one (`llama-server -m MODEL.gguf --jinja`, LM Studio's local server, or `vllm serve MODEL`) "
             "or pass the right --base-url")


class OpenAIModel:
    """Callable like `chat(messages, tool_schemas)` in agent_loop, over Chat Completions."""

    def __init__(self, model, base_url, *, api_key=None, options=None, timeout=TIMEOUT, ends_at=None):
        """`ends_at`: a time.monotonic() instant no request reads past (None: no deadline)."""
        self.model, self.url, self.api_key = model, base_url.rstrip("/"), api_key
        defaults = {key: default for key, (_, default) in OPTIONS.items() if default is not None}
        self.options = {**defaults, **(options or {})}  # as asked, in Ollama's names
        unknown = set(self.options) - set(OPTIONS)
        if unknown:
            raise ValueError(f"unknown model options {sorted(unknown)}; known: {sorted(OPTIONS)}")
        self.sent_options = {OPTIONS[key][0]: value for key, value in self.options.items()
                             if OPTIONS[key][0] and value is not None}
        if not isinstance(timeout, openai.Timeout):  # a number, or an httpx.Timeout as record_run builds
            timeout = openai.Timeout(**timeout.as_dict()) if hasattr(timeout, "as_dict") else openai.Timeout(timeout)
        self.timeout, self.ends_at = timeout, ends_at
        http = openai.DefaultHttpxClient(transport=DeadlineTransport(plain_transport(httpx2), lambda: self.ends_at))
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
            try:
                for chunk in stream:  # read past the finish: llama.cpp sends the usage after it
                    # The SDK does not validate chunks: whatever the server sent, read it as a dict.
                    piece = turn.add(chunk.to_dict(warnings=False) if isinstance(chunk, openai.BaseModel) else {})
                    if piece is not None:
                        yield piece
            except RecursionError:  # a chunk the SDK could not decode (models/adapter_http.py)
                turn.unreadable()
            if turn.finish is None:
                return  # no finish reason: cut off, so no done chunk and the loop runs nothing
            self.streamed.update(turn.streamed(position))
            yield turn.done()
        except FAILURES as error:
            raise unavailable(self.explain(error, streaming=stream is not None)) from error
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
