"""LocalModel: the Ollama adapter. Streams one chat request as plain chunk dicts.

It uses the official `ollama` SDK with `stream=True` and yields
`chunk.model_dump(exclude_none=True)`, which is the shape agent_loop.py reads. Every failure
becomes a `ModelUnavailable` whose message says what to do (start the server, pull the
model, turn thinking off), because the SDK's own errors are raw httpx exceptions when
streaming.

What this file deliberately is not: part of the loop (agent_loop.py never imports it), a
retry layer, or a place that interprets chunks. It passes them through untouched.
"""
import json
import os
import time

import httpx
import ollama
import pydantic

DEFAULT_MODEL = "gemma4:e2b"
DEFAULT_HOST = "http://127.0.0.1:11434"
# Deterministic sampling, a context that fits the task, and a cap on each answer.
OPTIONS = {"temperature": 0, "seed": 7, "num_ctx": 8192, "num_predict": 2048}
# Everything the SDK raises for a failed request or an unreadable reply.
FAILURES = (ollama.ResponseError, httpx.HTTPError, ConnectionError, pydantic.ValidationError, json.JSONDecodeError)
# The SDK's default is no timeout at all; a stalled server must not hang a run forever.
# `read` is the longest silence between two streamed bytes (a CPU model can be slow to start).
TIMEOUT = httpx.Timeout(connect=5.0, read=300.0, write=30.0, pool=5.0)
# With a deadline, a silent stream is cut this long after it (so the loop, which checks the
# deadline as each chunk arrives, sees the deadline passed and names it).
PAST_DEADLINE = 0.25


def read_timeout(timeout, ends_at):
    """The read timeout for one request: the configured one, or less when the run must end
    at `ends_at` (time.monotonic())."""
    if ends_at is None:
        return timeout.read
    return min(timeout.read, max(0.0, ends_at - time.monotonic()) + PAST_DEADLINE)


class ModelUnavailable(Exception):
    """The model cannot answer; the message says what to do about it."""


class LocalModel:
    """Callable like `chat(messages, tool_schemas)` in agent_loop, backed by Ollama."""

    ends_at = None  # set to a time.monotonic() value: no request reads past it (--deadline)

    def __init__(self, model=DEFAULT_MODEL, host=None, *, think=True, keep_alive="10m",
                 options=None, timeout=TIMEOUT):
        self.model = model
        self.host = host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
        self.think, self.keep_alive = think, keep_alive
        self.options = {**OPTIONS, **(options or {})}
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self.client = ollama.Client(host=self.host, timeout=self.timeout)

    def __call__(self, messages, tool_schemas):
        """Yield the chunks of one streamed reply; the stream is closed however this ends."""
        stream = None
        try:
            # The SDK validates the messages here and sends the request at the first next().
            stream = self._client().chat(model=self.model, messages=messages, tools=tool_schemas, stream=True,
                                      think=self.think, keep_alive=self.keep_alive, options=self.options)
            for chunk in stream:
                yield chunk.model_dump(exclude_none=True)
        except FAILURES as error:
            raise ModelUnavailable(self.explain(error)) from error
        finally:
            if stream is not None:
                stream.close()

    def _client(self):
        if self.ends_at is None:
            return self.client
        timeout = httpx.Timeout(self.timeout.connect, read=read_timeout(self.timeout, self.ends_at),
                                write=self.timeout.write, pool=self.timeout.pool)
        return ollama.Client(host=self.host, timeout=timeout)  # a client per request: cheap

    def check(self):
        """Before a run: return {"name", "digest", "capabilities"} or raise ModelUnavailable."""
        try:
            shown = self.client.show(self.model)
            listed = self.client.list().models
        except FAILURES as error:
            raise ModelUnavailable(self.explain(error)) from error
        capabilities = list(shown.capabilities or [])
        if capabilities and "tools" not in capabilities:
            raise ModelUnavailable(f"model {self.model!r} does not support tool calling; "
                                   f"use a model that does, such as {DEFAULT_MODEL}")
        if capabilities and self.think and "thinking" not in capabilities:
            raise ModelUnavailable(f"model {self.model!r} does not support thinking; run again with --no-think")
        digest = next((m.digest for m in listed if m.model in (self.model, f"{self.model}:latest")), None)
        return {"name": self.model, "digest": digest, "capabilities": capabilities}

    def explain(self, error):
        """Turn an SDK or transport error into one sentence a newcomer can act on."""
        host, model = self.host, self.model
        if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout, ConnectionError)):
            return f"Ollama is not reachable at {host}: start it with `ollama serve`, or pass --host"
        if isinstance(error, httpx.ReadTimeout):
            return f"Ollama at {host} sent nothing for {self.timeout.read:g} s; the model may be too slow here"
        if isinstance(error, httpx.HTTPError):
            return f"the connection to Ollama at {host} failed: {type(error).__name__}: {error}"
        if not isinstance(error, ollama.ResponseError):
            return f"the server at {host} sent a reply that is not Ollama's: {type(error).__name__}: {error}"
        text = str(error.error)
        if error.status_code == 404 or "not found" in text:
            return f"model {model!r} is not pulled on {host}: run `ollama pull {model}`"
        if "does not support thinking" in text:
            return f"model {model!r} does not support thinking: run again with --no-think"
        if "does not support tools" in text:
            return f"model {model!r} does not support tool calling: use a model that does, such as {DEFAULT_MODEL}"
        if error.status_code == -1:
            return f"Ollama reported an error in the middle of the reply: {text}"
        return f"Ollama answered {error.status_code}: {text}"
