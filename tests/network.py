"""The network, as the model adapters' and the command lines' tests meet it: a loopback port
nothing listens on, and a loopback server that takes connections and never answers.

What this file deliberately is not: a fake model server (testing/fake_ollama.py,
testing/fake_openai.py and testing/loopback.py answer like one).
"""
import contextlib
import socket
import threading
import time


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # bound, then closed: nothing listens there


@contextlib.contextmanager
def silent_server():
    """A loopback server that accepts every connection and never says a byte (a hung server, or a
    proxy in front of a dead one): yields (its URL, the monotonic times it accepted connections)."""
    listener, accepted, held, stop = socket.socket(), [], [], threading.Event()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.05)  # so the thread sees `stop`: closing a socket does not wake accept()

    def serve():
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            accepted.append(time.monotonic())
            held.append(connection)
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", accepted
    finally:
        stop.set()
        thread.join()
        for connection in [listener, *held]:
            connection.close()
