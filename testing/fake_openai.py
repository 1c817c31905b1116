"""A loopback OpenAI-compatible server that plays scripted Chat Completions streams.

It answers `POST /v1/chat/completions` with server-sent events (`data: {json}` lines, each
followed by a blank line, ending `data: [DONE]`) and `GET /v1/models` over real HTTP, for the
real `openai` SDK (testing/loopback.py runs it). The builders below write down how each server
streams a tool call (llama.cpp, Ollama's /v1, vLLM and LM Studio differ in where the id, the name,
the argument fragments, the finish reason and the usage come), so a test documents each quirk.
`Raw(bytes)` serves a captured stream byte for byte (tests/wire_captures/).

What this file deliberately is not: a model; anything recorded against it is "scripted".
"""
import json
from itertools import zip_longest

from werkzeug import Response

from testing.loopback import Drop, Forever, HttpError, LoopbackServer, Stall  # noqa: F401 - the tests' scripted events

# A server-sent-events comment: some servers and proxies send one now and then to keep a
# connection open while the model works. The SDK reads past it; no chunk reaches the adapter.
KEEP_ALIVE = b": ping\n\n"


class Raw:
    """As a whole turn: serve these exact bytes as the event stream (a captured stream)."""

    def __init__(self, data):
        self.data = data


class FakeOpenAI(LoopbackServer):
    """Serve `turns`: lists of chunk dicts or raw event bytes (Stall, Drop, Forever and callables
    allowed among them), or HttpError, or Raw. `models` is what `GET /v1/models` lists (or a
    Raw page it answers instead)."""

    url_path = "/v1"

    def __init__(self, *turns, model="qwen2.5-coder-1.5b", models=None):
        super().__init__()
        self.model = model
        self.play(*turns, models=models)

    def _routes(self, server):
        server.expect_request("/v1/chat/completions", method="POST").respond_with_handler(self._chat)
        server.expect_request("/v1/models", method="GET").respond_with_handler(self._models)

    def play(self, *turns, models=None):
        """Start a new script, and say what `/v1/models` lists."""
        self.start_script(turns)
        self.models = models if isinstance(models, Raw) else list(models if models is not None else [{"id": self.model}])
        return self

    def _models(self, request):
        if isinstance(self.models, Raw):
            return Response(self.models.data, content_type="text/html; charset=utf-8")
        data = [{"object": "model", "created": 0, "owned_by": "fake", **entry} for entry in self.models]
        return Response(json.dumps({"object": "list", "data": data}), content_type="application/json")

    def _chat(self, request):
        body = json.loads(request.data)
        # Like vLLM and Ollama (llama.cpp answers whatever it loaded, whatever the name).
        if isinstance(self.models, Raw) or body.get("model") not in [entry["id"] for entry in self.models]:
            self.requests.append(body)
            return _error(404, f"The model `{body.get('model')}` does not exist.")
        turn = self.next_turn(body)
        if turn is None:
            return _error(500, f"the fake server has no scripted turn for request {len(self.requests)}")
        if isinstance(turn, HttpError):
            return _error(turn.status, turn.message)
        events = [turn.data] if isinstance(turn, Raw) else self.stream(turn, self.generation, self._wire,
                                                                       end=b"data: [DONE]\n\n")
        return Response(events, content_type="text/event-stream")

    def _wire(self, item):
        """One event on the wire: bytes as they are (KEEP_ALIVE), or a chunk in its envelope."""
        if isinstance(item, bytes):
            return item
        return sse({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": self.model, **item})


def sse(value):
    """One server-sent event, compact JSON as llama.cpp writes it."""
    return b"data: " + json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode() + b"\n\n"


def _error(status, message):
    if isinstance(message, bytes):  # an HTML page, as a proxy in front of the server answers
        return Response(message, status=status, content_type="text/html; charset=utf-8")
    body = {"error": {"code": status, "message": message, "type": "server_error"}}  # llama.cpp's shape
    return Response(json.dumps(body), status=status, content_type="application/json")


# Chunk builders: one choice each, as every server sends them.

def delta(finish=None, **fields):
    """A chunk whose only choice carries `fields` as its delta."""
    return {"choices": [{"index": 0, "delta": fields, "finish_reason": finish}]}


def text(*fragments, finish="stop"):
    """A text-only turn: the role first, then each fragment, then the finish chunk."""
    return [delta(role="assistant", content=None), *[delta(content=f) for f in fragments], delta(finish)]


def reasoning(fragment, field="reasoning_content"):
    """A thinking fragment (llama.cpp and DeepSeek say reasoning_content, some servers reasoning)."""
    return delta(**{field: fragment})


def usage(prompt=120, completion=9, cached=None, timings=None):
    """The usage chunk after the finish chunk: `choices` is empty."""
    chunk = {"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                      "total_tokens": prompt + completion}}
    if cached is not None:
        chunk["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
    if timings is not None:
        chunk["timings"] = timings
    return chunk


def tool_delta(index, id=None, name=None, arguments=None):
    """A chunk with one tool-call delta; only the fields given are sent."""
    function = {key: value for key, value in (("name", name), ("arguments", arguments)) if value is not None}
    call = {"index": index, **({"id": id, "type": "function"} if id else {}), "function": function}
    return delta(tool_calls=[call])


def pieces(text, size=3):
    """Cut `text` into fragments of about one token."""
    return [text[i:i + size] for i in range(0, len(text), size)]


# One builder per server: how it streams a single call. `arguments` is the JSON text itself.

def llama_cpp_call(name, arguments, id="WcdI8Uk6Jz3D2aFqZ0yTb9xR", cache_n=80, prompt_n=40):
    """llama-server --jinja: id, type and whole name first with arguments "" (the build in
    wire_captures/ sent "{"), then fragments of about one token; finish `tool_calls` in an
    empty delta; then the usage chunk (choices: []) with llama.cpp's `timings`."""
    return [delta(role="assistant", content=None),
            tool_delta(0, id=id, name=name, arguments=""),
            *[tool_delta(0, arguments=piece) for piece in pieces(arguments)],
            delta("tool_calls"),
            usage(prompt=cache_n + prompt_n, completion=12, cached=cache_n,
                  timings={"cache_n": cache_n, "prompt_n": prompt_n, "prompt_ms": 900.0,
                           "predicted_n": 12, "predicted_ms": 1000.0})]


def ollama_v1_call(name, arguments, id="call_k3j9x2pq"):
    """Ollama's /v1: the whole call in one delta, the finish in a separate empty delta."""
    return [delta(role="assistant", content="", tool_calls=[
                {"id": id, "index": 0, "type": "function", "function": {"name": name, "arguments": arguments}}]),
            delta("tool_calls", role="assistant", content=""),
            usage()]


def vllm_call(name, arguments, id="chatcmpl-tool-5b1e0c", held_back=8):
    """vLLM: fragments, and the rest of the arguments in the finish chunk itself."""
    head, tail = arguments[:-held_back], arguments[-held_back:]
    finish = tool_delta(0, arguments=tail)
    finish["choices"][0]["finish_reason"] = "tool_calls"
    return [delta(role="assistant", content=""), tool_delta(0, id=id, name=name, arguments=""),
            *[tool_delta(0, arguments=piece) for piece in pieces(head)], finish, usage()]


def vllm_no_argument_call(name, arguments="missing", id="chatcmpl-tool-77a0"):
    """vLLM, a tool without parameters: no `arguments` key at all, or `arguments: null`."""
    function = {"name": name} if arguments == "missing" else {"name": name, "arguments": arguments}
    call = {"index": 0, "id": id, "type": "function", "function": function}
    return [delta(role="assistant", content=""), delta(tool_calls=[call]), delta("tool_calls"), usage()]


def lm_studio_call(name, arguments, id="365174485", later_name=""):
    """LM Studio: the id again on every delta, `name: ""` on the later ones. With
    later_name=name it is the server that repeats the whole name (llama.cpp issue 13774)."""
    later = [tool_delta(0, id=id, name=later_name, arguments=piece) for piece in pieces(arguments, 6)]
    return [tool_delta(0, id=id, name=name, arguments=""), *later, delta("tool_calls")]


def reused_index_calls(*calls):
    """Each (name, arguments) as a whole call at index 0 with a new id (Ollama once did this)."""
    whole = [tool_delta(0, id=f"call_{n}", name=name, arguments=arguments) for n, (name, arguments) in enumerate(calls)]
    return [*whole, delta("tool_calls")]


def parallel_calls(first, second):
    """Two (name, arguments) calls at indexes 0 and 1, their fragments interleaved."""
    (name0, args0), (name1, args1) = first, second
    head = [tool_delta(0, id="call_a", name=name0, arguments=""), tool_delta(1, id="call_b", name=name1, arguments="")]
    mixed = []
    for part0, part1 in zip_longest(pieces(args0), pieces(args1)):
        mixed += [tool_delta(index, arguments=part) for index, part in ((0, part0), (1, part1)) if part is not None]
    return [*head, *mixed, delta("tool_calls"), usage()]


def without_finish(turn):
    """The same turn with every finish reason removed (a server that never says it is done)."""
    for chunk in turn:
        for choice in chunk.get("choices", []) if isinstance(chunk, dict) else []:
            choice["finish_reason"] = None
    return turn
