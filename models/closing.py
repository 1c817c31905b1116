"""Every open connection to a model server in this process, and closing them all at once.

A stop (Ctrl-C, SIGTERM, SIGHUP) must end every running request now. A single run streams in
the main thread, where the signal itself interrupts the read. A search streams in threads,
which no signal reaches: a candidate blocked on a server that is still reading a long prompt
(minutes on a CPU, before the first byte) would hold the stop until that byte came. So every
model connection is made through `Closable`, a network backend that keeps the sockets it
opened, and `close_all()` shuts each one down: a read blocked on it in any thread returns at
once, the request fails, and the run's own cancel check names the stop. The server sees the
client go and stops generating.

What this file deliberately is not: a signal handler (command_line/ctrl_c.py calls `close_all`) or a
connection pool (each SDK's own pool is kept; only how it opens a socket is wrapped).
"""
import socket
import threading
import weakref

_open = weakref.WeakSet()  # the streams of every open model connection (a closed one drops out)
_lock = threading.Lock()


def closable(transport):
    """`transport` (httpx's or httpx2's HTTPTransport) with its connections opened by `Closable`.
    Neither library takes a network backend as an argument, so it is set on the pool it built;
    both pools (httpcore, httpcore2) keep it under this name."""
    pool = transport._pool
    pool._network_backend = Closable(pool._network_backend)
    return transport


def close_all():
    """Shut down every open model connection (safe from a signal handler: no lock is waited on)."""
    while True:
        try:
            streams = list(_open)  # no lock: the interrupted main thread may hold it
            break
        except RuntimeError:  # another thread opened one meanwhile: read the set again
            continue
    for stream in streams:
        stream.shut()


class Closable:
    """A network backend (httpcore's and httpcore2's interface) whose streams `close_all` reaches."""

    def __init__(self, inner):
        self.inner = inner

    def connect_tcp(self, *args, **kwargs):
        return _Kept(self.inner.connect_tcp(*args, **kwargs))

    def connect_unix_socket(self, *args, **kwargs):
        return _Kept(self.inner.connect_unix_socket(*args, **kwargs))

    def sleep(self, seconds):
        self.inner.sleep(seconds)


class _Kept:
    """A network stream, kept in `_open` while it is open. TLS wraps the socket into a new
    stream (the old one's socket is detached), so that stream is kept in its place."""

    def __init__(self, stream):
        self.stream = stream
        with _lock:
            _open.add(self)

    def read(self, max_bytes, timeout=None):
        return self.stream.read(max_bytes, timeout)

    def write(self, buffer, timeout=None):
        self.stream.write(buffer, timeout)

    def close(self):
        with _lock:
            _open.discard(self)
        self.stream.close()

    def start_tls(self, *args, **kwargs):
        with _lock:
            _open.discard(self)
        return _Kept(self.stream.start_tls(*args, **kwargs))

    def get_extra_info(self, info):
        return self.stream.get_extra_info(info)

    def shut(self):
        """Both directions shut: a blocked read returns at once; the socket is closed by its owner."""
        sock = self.stream.get_extra_info("socket")
        try:
            sock is not None and sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # closed already, or never connected
            pass
