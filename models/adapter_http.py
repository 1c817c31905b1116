"""What both model adapters share: the one error a CLI reports, and a deadline on every request.

`ModelUnavailable` is what local_model.py and openai_model.py raise for anything that stops a
model from answering, with one sentence saying what to do. (`unavailable(message)` makes it a
`RequestTooLong` when the server said the request does not fit its context.) `DeadlineTransport` is an HTTP
transport for both SDKs (httpx under ollama's, httpx2 under openai's) that ends a request at
the run's deadline, whatever the server sends or does not send; `plain_transport` is what it
wraps, built on one TLS context for the process.

Both also end a turn the same way at a chunk their SDK cannot decode: JSON nested deeper than
Python's json reads (about 1,000 levels), which in a chunk only a tool call's arguments can be.
That call becomes UNREADABLE_CALL, which the loop refuses with an error the model reads, and the
run goes on: it is the model's malformed call, not a failure of the model server.

What this file deliberately is not: an adapter (it knows no API) or a retry layer.
"""
import copy
import functools
import time

import httpx
import httpx2  # the openai SDK's fork of httpx: DeadlineTransport serves both

from models.closing import closable

# A request ends this long after the deadline, so the loop, whose own budget started a moment
# after the adapter's, finds its budget spent when the request fails and names the deadline.
PAST_DEADLINE = 0.25


# Nameless, with words for arguments: loop/dispatch.py refuses it and quotes them.
UNREADABLE_CALL = {"function": {"name": "", "arguments": (
    "not read: the server's chunk with this call nests deeper than JSON can be read (about 1,000 levels); "
    "a tool takes one flat JSON object of strings")}}


def unreadable_end():
    """The Ollama-shaped final chunk of a turn cut by a chunk the SDK could not decode."""
    return {"message": {"role": "assistant", "content": "", "tool_calls": [copy.deepcopy(UNREADABLE_CALL)]},
            "done": True, "done_reason": "stop"}


class ModelUnavailable(Exception):
    """The model cannot answer; the message says what to do about it."""


class DeadlinePassed(ModelUnavailable):
    """The run's deadline came while a request was still open."""


class RequestTooLong(ModelUnavailable):
    """The server refused the request as longer than its context. Recorded under its own name,
    it is the run's result (attempt/servers.py:lost_to_server): sent again, or to another server
    of the same context, the same run is too long again."""


# How servers say so (llama-server; OpenAI and vLLM).
TOO_LONG = ("exceeds the available context size", "maximum context length", "context_length_exceeded")


def unavailable(message):
    """The error for `message`: RequestTooLong when a server said the request does not fit."""
    return (RequestTooLong if any(words in message for words in TOO_LONG) else ModelUnavailable)(message)


def plain_transport(http_library):
    """`http_library`'s (httpx or httpx2) HTTP transport, on one TLS context for the process,
    built the library's own default way. Building one loads the certificate bundle, about 20 ms
    of CPU, and a model object is made for each attempt, candidate and check: most of them talk
    plain HTTP to a local server and would never use it."""
    return closable(http_library.HTTPTransport(verify=tls_context(http_library)))  # a stop closes its streams


@functools.cache
def tls_context(http_library):
    """`http_library`'s default TLS context, built once in a process."""
    return http_library.create_ssl_context()


def deadline_in(seconds):
    """The time.monotonic() instant `seconds` from now, or None for no deadline."""
    return None if seconds is None else time.monotonic() + seconds


class DeadlineTransport(httpx.BaseTransport, httpx2.BaseTransport):
    """An HTTP transport whose requests end at a deadline whatever arrives.

    Every wait (connect, read) gets at most the time that is left, so a silent server is cut
    off; every piece of bytes that arrives is checked against the clock, so a server that keeps
    sending keep-alive comments or empty chunks is cut off too. (The SDKs swallow comments, so a
    check on each chunk they hand over would never run.) It wraps the transport that really
    sends: httpx's for the ollama SDK, httpx2's for the openai SDK."""

    def __init__(self, inner, deadline):
        """`deadline()`: the time.monotonic() instant requests end, asked as each one starts
        (None: no deadline), so a model can set its deadline after building its HTTP client."""
        self.inner, self.deadline = inner, deadline

    def handle_request(self, request):
        ends_at = self.deadline()
        if ends_at is None:
            return self.inner.handle_request(request)
        closes_at = ends_at + PAST_DEADLINE
        left = closes_at - time.monotonic()
        if left <= 0:
            raise passed(request)
        waits = request.extensions.get("timeout", {})
        request.extensions["timeout"] = {phase: left if limit is None else min(limit, left)
                                         for phase, limit in waits.items()}
        try:
            response = self.inner.handle_request(request)
        except Exception as error:  # a wait cut to fit the deadline, or a real failure
            if time.monotonic() < closes_at:
                raise
            raise passed(request) from error
        response.stream = EndingStream(response.stream, closes_at, request)
        return response

    def close(self):
        self.inner.close()


class EndingStream(httpx.SyncByteStream, httpx2.SyncByteStream):
    """A response body that ends at `closes_at` (see DeadlineTransport)."""

    def __init__(self, stream, closes_at, request):
        self.stream, self.closes_at, self.request = stream, closes_at, request

    def __iter__(self):
        try:
            for piece in self.stream:
                if time.monotonic() >= self.closes_at:
                    raise passed(self.request)
                yield piece
        except DeadlinePassed:
            raise
        except Exception as error:  # a read cut to fit the deadline, or a real failure
            if time.monotonic() < self.closes_at:
                raise
            raise passed(self.request) from error

    def close(self):
        self.stream.close()


def passed(request):
    return DeadlinePassed(f"the run's deadline passed before {request.url} finished answering")
