"""LocalModel: the Ollama adapter. Streams one chat request as plain chunk dicts.

It uses the official `ollama` SDK with `stream=True` and yields
`chunk.model_dump(exclude_none=True)`, which is the shape agent_loop.py reads. Every failure
becomes a `ModelUnavailable` whose message says what to do (start the server, pull the
model, turn thinking off), because the SDK's own errors are raw httpx exceptions when
streaming. The adapter owns its options (`recorded()` says what a recording keeps) and its
deadline: `ends_at`, or `with_deadline(seconds)` when the run starts. `DeadlineTransport`
(models/adapter_http.py, shared with openai_model.py) ends every request at it, whatever the
server sends.

What this file deliberately is not: part of the loop (agent_loop.py never imports it), a
retry layer, or a place that interprets chunks. It passes them through untouched.
"""
import json
import os

import httpx
import pydantic

from loop.tool_checks import quoted
from models.adapter_http import (PAST_DEADLINE, DeadlinePassed, DeadlineTransport, ModelUnavailable,  # noqa: F401
                                 deadline_in, plain_transport, tls_context, unreadable_end)  # re-exported: every CLI catches local_model.ModelUnavailable

DEFAULT_MODEL = "gemma4:e2b"
DEFAULT_HOST = "http://127.0.0.1:11434"
# The options this adapter takes, each with its default: deterministic sampling, a context that
# fits the task, and a cap on each answer. models/choice.py holds one field for each option an
# adapter takes, and command_line/shared_flags.py one flag (tests/test_model_choice.py keeps them together).
OPTIONS = {"temperature": 0, "seed": 7, "num_ctx": 8192, "num_predict": 2048}
# Everything the SDK raises for a failed request or an unreadable reply (its own ResponseError is
# added once the SDK is imported: see _failures).
FAILURES = (httpx.HTTPError, ConnectionError, pydantic.ValidationError, json.JSONDecodeError)
# The SDK's default is no timeout at all; a stalled server must not hang a run forever.
# `read` is the longest silence between two streamed bytes (a CPU model can be slow to start).
TIMEOUT = httpx.Timeout(connect=5.0, read=300.0, write=30.0, pool=5.0)


def _sdk():
    """The ollama SDK, imported when the first LocalModel is made, not with this module: every
    entry point and evaluate.py's worker processes import this file for its defaults and
    ModelUnavailable, and most of them (an OpenAI-compatible server, a scripted model) never
    talk to Ollama. The SDK's import is the slowest part of theirs (about 0.15 CPU-seconds)."""
    import ollama
    return ollama


def _failures():
    """FAILURES and the SDK's own ResponseError: what a request to Ollama may raise."""
    return (_sdk().ResponseError, *FAILURES)


class LocalModel:
    """Callable like `chat(messages, tool_schemas)` in agent_loop, backed by Ollama."""

    def __init__(self, model=DEFAULT_MODEL, host=None, *, think=True, keep_alive="10m",
                 options=None, timeout=TIMEOUT, ends_at=None):
        """`ends_at`: a time.monotonic() instant no request reads past (None: no deadline)."""
        self.model = model
        self.url = host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
        self.think, self.keep_alive = think, keep_alive
        self.options = {**OPTIONS, **(options or {})}
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self.ends_at = ends_at
        transport = DeadlineTransport(plain_transport(httpx), lambda: self.ends_at)
        self.client = _sdk().Client(host=self.url, timeout=self.timeout, transport=transport)

    def with_deadline(self, seconds):
        """A copy with the same options whose requests end `seconds` from now (None: never),
        for a CLI that checks the model first and starts the run later."""
        timed = LocalModel(self.model, self.url, think=self.think, keep_alive=self.keep_alive,
                           options=self.options, timeout=self.timeout)
        timed.ends_at = deadline_in(seconds)  # counted once its HTTP client is built: that takes a moment
        return timed

    def recorded(self):
        """What a recording keeps under `settings`: the options exactly as they are sent."""
        return {"think": self.think, "keep_alive": self.keep_alive, "options": self.options}

    def __call__(self, messages, tool_schemas):
        """Yield the chunks of one streamed reply; the stream is closed however this ends."""
        stream = None
        try:
            # The SDK validates the messages here and sends the request at the first next().
            stream = self.client.chat(model=self.model, messages=messages, tools=tool_schemas, stream=True,
                                      think=self.think, keep_alive=self.keep_alive, options=self.options)
            for chunk in stream:
                yield chunk.model_dump(exclude_none=True)
        except RecursionError:  # a line the SDK could not decode: the model's unreadable call
            yield unreadable_end()
        except _failures() as error:
            raise ModelUnavailable(self.explain(error)) from error
        finally:
            if stream is not None:
                stream.close()

    def check(self):
        """Before a run: return {"name", "digest", "capabilities"} or raise ModelUnavailable."""
        try:
            shown = self.client.show(self.model)
            listed = self.client.list().models
        except _failures() as error:
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
        url, model = self.url, self.model
        if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout, ConnectionError)):
            return f"Ollama is not reachable at {url}: start it with `ollama serve`, or pass --host"
        if isinstance(error, httpx.ReadTimeout):
            return f"Ollama at {url} sent nothing for {self.timeout.read:g} s; the model may be too slow here"
        if isinstance(error, httpx.HTTPError):
            return f"the connection to Ollama at {url} failed: {type(error).__name__}: {quoted(str(error))}"
        if not isinstance(error, _sdk().ResponseError):
            return f"the server at {url} sent a reply that is not Ollama's: {type(error).__name__}: {quoted(str(error))}"
        text = str(error.error)
        # A 404 from a server that is not Ollama at all (llama-server, vLLM) is no missing model.
        if error.status_code == 404 and probe(f"{url}/api/version", "version") is False:
            if probe(f"{url}/v1/models", "data"):
                return f"{url} is an OpenAI-compatible server, not Ollama: try `--api openai --base-url {url}/v1`"
            return f"{url} is not Ollama (it answers 404 to Ollama's API): pass Ollama's URL as --host"
        if error.status_code == 404 or "not found" in text:
            return f"model {model!r} is not pulled on {url}: run `ollama pull {model}`"
        if "does not support thinking" in text:
            return f"model {model!r} does not support thinking: run again with --no-think"
        if "does not support tools" in text:
            return f"model {model!r} does not support tool calling: use a model that does, such as {DEFAULT_MODEL}"
        if error.status_code == -1:
            return f"Ollama reported an error in the middle of the reply: {quoted(text)}"
        return f"Ollama answered {error.status_code}: {quoted(text)}"


def probe(url, key):
    """A quick GET: True when `url` answers 200 with a JSON object holding `key`, False for any
    other answer, None when nothing answers (then we cannot tell what kind of server it is)."""
    try:
        response = httpx.get(url, timeout=2.0, verify=tls_context(httpx))
        body = response.json() if response.is_success else None
    except (httpx.HTTPError, httpx.InvalidURL):
        return None
    except ValueError:  # not JSON: an HTML page, say
        return False
    return isinstance(body, dict) and key in body
