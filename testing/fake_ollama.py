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
import re
import time

from werkzeug import Response

from testing.loopback import Drop, Forever, HttpError, LoopbackServer, Stall  # noqa: F401 - the tests' scripted events

FAKE_DIGEST = "sha256:" + "0" * 64  # says plainly that no real weights were involved


def go_json(value):
    """Serialise like Go's json.Marshal: compact, raw UTF-8, with <, > and & escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    # A lone surrogate cannot be UTF-8; on the wire it is the escape a model's output can hold.
    text = re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", text)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n"


class FakeOllama(LoopbackServer):
    """Serve `turns` (lists of chunk dicts, `{"error": ...}` lines, raw line bytes, Stall, Drop,
    Forever; or HttpError)."""

    def __init__(self, *turns, model="gemma4:e2b", capabilities=("completion", "tools", "thinking")):
        super().__init__()
        self.model = model
        self.play(*turns, capabilities=capabilities)

    def _routes(self, server):
        server.expect_request("/api/chat", method="POST").respond_with_handler(self._chat)
        server.expect_request("/api/show", method="POST").respond_with_handler(self._show)
        server.expect_request("/api/tags", method="GET").respond_with_json(
            {"models": [{"name": self.model, "model": self.model, "digest": FAKE_DIGEST, "size": 0}]})
        server.expect_request("/api/version").respond_with_json({"version": "0.0.0-fake"})

    def play(self, *turns, capabilities=("completion", "tools", "thinking")):
        """Start a new script, and say what `/api/show` lists as the model's capabilities."""
        self.start_script(turns)
        self.capabilities = list(capabilities)
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
        if body.get("model") != self.model:
            self.requests.append(body)
            return _error(404, f"model '{body.get('model')}' not found")
        turn = self.next_turn(body)
        if turn is None:
            return _error(500, f"the fake server has no scripted turn for request {len(self.requests)}")
        if isinstance(turn, HttpError):
            return _error(turn.status, turn.message)
        return Response(self.stream(turn, self.generation, self._wire), content_type="application/x-ndjson")

    def _wire(self, chunk):
        """One NDJSON line: a chunk in its envelope, a mid-stream error line as it is, or bytes as
        they are (a line json.dumps cannot write, such as 1,200 levels of nesting)."""
        if isinstance(chunk, bytes):
            return chunk
        if "error" in chunk:
            return go_json(chunk)  # a mid-stream error line: no model, no done
        return go_json({"model": self.model, "created_at": _now(), **chunk})


def _error(status, message):
    if isinstance(message, bytes):
        return Response(message, status=status, content_type="text/html; charset=utf-8")
    return Response(go_json({"error": message}), status=status, content_type="application/json; charset=utf-8")


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{time.time_ns() % 10**9:09d}Z"
