"""What the two loopback model servers share: their start and stop (and `die()`, a server
whose process was killed), their scripts, and the scripted events that stand for a server
misbehaving.

`LoopbackServer` runs a real HTTP server on 127.0.0.1 (pytest-httpserver, a real Werkzeug
server in a thread), so the real SDKs talk to it over real HTTP. A script is a queue of turns:
request N gets turn N, whatever it asks. fake_ollama.py and fake_openai.py add their routes and
write each chunk in their own wire format (`_wire`); everything else is here, once.

What this file deliberately is not: a model, or a server of either wire protocol on its own.
"""
import contextlib
import logging
import socket
import time
import weakref

from pytest_httpserver import HTTPServer


class Stall:
    """In a turn: go silent for `seconds` (a slow or stuck server)."""

    def __init__(self, seconds):
        self.seconds = seconds


class Drop:
    """In a turn: end the body abruptly, without its proper end."""


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
    """As a whole turn: answer before streaming with this status and the server's error body
    (or, when `message` is bytes, that page as HTML, as a proxy in front of a server does)."""

    def __init__(self, status, message):
        self.status, self.message = status, message


class LoopbackServer:
    """A real HTTP server on loopback that plays a script; use it as a context manager."""

    url_path = ""  # what follows host:port in `url` (the OpenAI API lives under /v1)

    def __init__(self):
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.server.no_handler_status_code = 404  # an unknown path, as a real server answers it
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access log per request

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.port}{self.url_path}"

    def __enter__(self):
        self._routes(self.server)
        self.server.start()
        self._keep_connections()
        return self

    def __exit__(self, *exc):
        if self.server.is_running():  # not after `die()`
            self.server.stop()

    def die(self):
        """Go away as a server whose process was killed: its port refuses new connections, and
        every open one is closed under its request (the client reads the end of the stream at
        once, mid-answer). A stop alone would not do: Werkzeug's threads would go on serving the
        requests they hold, as a live server does."""
        self.server.stop()  # the listening socket closed
        for connection in self.connections:
            with contextlib.suppress(OSError):  # one its thread already closed
                connection.shutdown(socket.SHUT_RDWR)

    def _keep_connections(self):
        """Keep each connection the server accepts (Werkzeug keeps none), for `die()`."""
        werkzeug, self.connections = self.server.server, weakref.WeakSet()  # a closed one drops out
        handle = werkzeug.process_request

        def process_request(connection, address):
            self.connections.add(connection)
            handle(connection, address)
        werkzeug.process_request = process_request

    def start_script(self, turns):
        """Start a new script (a running server can be reused: stopping one takes 0.5 s)."""
        self.turns = list(turns)
        self.generation = getattr(self, "generation", 0) + 1  # late threads of an old script stay out
        self.requests = []    # the JSON bodies of every chat request, in order
        self.disconnects = 0  # streams the client closed before the script ended

    def next_turn(self, body):
        """Keep the request; return its turn, or None when the script is spent."""
        self.requests.append(body)
        return self.turns.pop(0) if self.turns else None

    def stream(self, turn, generation, wire, end=None):
        """The body of one streamed turn: each item on the wire, the scripted events acted out,
        then `end` (the protocol's closing bytes, if it has any)."""
        try:
            for item in turn:
                if isinstance(item, Stall):
                    time.sleep(item.seconds)
                elif isinstance(item, Drop):
                    raise ConnectionAbortedError("scripted abrupt close")
                elif isinstance(item, Forever):
                    yield from item.repeat(wire)
                elif callable(item):
                    item()  # a step between chunks, such as waiting for the test to go on
                else:
                    yield wire(item)
            if end is not None:
                yield end
        except GeneratorExit:
            if generation == self.generation:
                self.disconnects += 1  # Werkzeug closes us when a write to the client fails
            raise
