"""A loopback Ollama server that plays scripted turns over the real wire protocol.

It answers `POST /api/chat` with `application/x-ndjson` in chunked transfer encoding, one
compact Go-style JSON object per line (no spaces after `:` and `,`, as Ollama's Go encoder writes
them; the last line has `"done": true`, its `done_reason` and the counts), plus
`/api/show`, `/api/tags` and `/api/version`, so the real `ollama` SDK talks to it over real
HTTP. Built on pytest-httpserver, which runs a real Werkzeug server in a thread.

What this file deliberately is not: a model. Each request gets the next scripted turn, in
order, whatever it asks; anything recorded against it is `source: "scripted"`.
"""
import json
import logging
import re
import time

from pytest_httpserver import HTTPServer
from werkzeug import Response

FAKE_DIGEST = "sha256:" + "0" * 64  # says plainly that no real weights were involved


class Stall:
    """In a turn: go silent for `seconds` (a slow or stuck server)."""

    def __init__(self, seconds):
        self.seconds = seconds


class Drop:
    """In a turn: end the body abruptly, without the final empty chunk."""


class Forever:
    """In a turn: send `item` every `seconds` until the client goes away (a server that keeps
    the stream alive and never answers); it gives up after `at_most` seconds."""

    def __init__(self, item, seconds=0.05, at_most=30.0):
        self.item, self.seconds, self.at_most = item, seconds, at_most

    def repeat(self, wire):
        """`wire(item)`, again and again."""
        gives_up = time.monotonic() + self.at_most
        while time.monotonic() < gives_up:
            yield wire(self.item)
            time.sleep(self.seconds)


class HttpError:
    """As a whole turn: answer before streaming with this status and `{"error": message}`
    (or, when `message` is bytes, that page as HTML, as a proxy in front of a server does)."""

    def __init__(self, status, message):
        self.status, self.message = status, message


def go_json(value):
    """Serialise like Go's json.Marshal: compact, raw UTF-8, with <, > and & escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    # A lone surrogate cannot be UTF-8; on the wire it is the escape a model's output can hold.
    text = re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", text)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n"


class FakeOllama:
    """Serve `turns` (lists of chunk dicts, `{"error": ...}` lines, Stall, Drop, Forever; or HttpError)."""

    def __init__(self, *turns, model="gemma4:e2b", capabilities=("completion", "tools", "thinking")):
        self.model = model
        self.play(*turns, capabilities=capabilities)
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access log per request

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.port}"

    def __enter__(self):
        self.server.expect_request("/api/chat", method="POST").respond_with_handler(self._chat)
        self.server.expect_request("/api/show", method="POST").respond_with_handler(self._show)
        self.server.expect_request("/api/tags", method="GET").respond_with_json(
            {"models": [{"name": self.model, "model": self.model, "digest": FAKE_DIGEST, "size": 0}]})
        self.server.expect_request("/api/version").respond_with_json({"version": "0.0.0-fake"})
        self.server.start()
        return self

    def __exit__(self, *exc):
        self.server.stop()

    def play(self, *turns, capabilities=("completion", "tools", "thinking")):
        """Start a new script (a running server can be reused: stopping one takes 0.5 s)."""
        self.turns = list(turns)
        self.capabilities = list(capabilities)
        self.generation = getattr(self, "generation", 0) + 1  # late threads of an old script stay out
        self.requests = []    # the JSON bodies of every /api/chat request, in order
        self.disconnects = 0  # streams the client closed before the script ended
        return self

    def _show(self, request):
        asked = json.loads(request.data).get("model")
        if asked != self.model:
            return _error(404, f"model '{asked}' not found")
        return Response(go_json({"modified_at": "2026-01-01T00:00:00Z", "details": {"family": "fake"},
                                 "model_info": {}, "capabilities": self.capabilities}),
                        content_type="application/json; charset=utf-8")

    def _chat(self, request):
        body = json.loads(request.data)
        self.requests.append(body)
        if body.get("model") != self.model:
            return _error(404, f"model '{body.get('model')}' not found")
        if not self.turns:
            return _error(500, f"the fake server has no scripted turn for request {len(self.requests)}")
        turn = self.turns.pop(0)
        if isinstance(turn, HttpError):
            return _error(turn.status, turn.message)
        return Response(self._lines(turn, self.generation), content_type="application/x-ndjson")

    def _lines(self, turn, generation):
        try:
            for item in turn:
                if isinstance(item, Stall):
                    time.sleep(item.seconds)
                elif isinstance(item, Drop):
                    raise ConnectionAbortedError("scripted abrupt close")
                elif isinstance(item, Forever):
                    yield from item.repeat(lambda chunk: go_json({"model": self.model, "created_at": _now(), **chunk}))
                elif "error" in item:
                    yield go_json(item)  # a mid-stream error line: no model, no done
                else:
                    yield go_json({"model": self.model, "created_at": _now(), **item})
        except GeneratorExit:
            if generation == self.generation:
                self.disconnects += 1  # Werkzeug closes us when a write to the client fails
            raise


def _error(status, message):
    if isinstance(message, bytes):
        return Response(message, status=status, content_type="text/html; charset=utf-8")
    return Response(go_json({"error": message}), status=status, content_type="application/json; charset=utf-8")


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{time.time_ns() % 10**9:09d}Z"
