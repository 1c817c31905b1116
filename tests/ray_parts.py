"""What the Ray test files share (tests/test_ray.py, tests/test_ray_stops.py): the two-node
cluster they run on, a loopback server that repairs the sample by the conversation, and the
command-line flags that point evaluate.py at such servers.

What this file deliberately is not: a fixture module (conftest.py's `ray_cluster` starts the
cluster with `two_node_cluster`) or a test file. Ray is imported only when a cluster starts.
"""
import contextlib
import json
import os
from pathlib import Path

from tests.helpers import FIX_NEW, FIX_OLD


@contextlib.contextmanager
def two_node_cluster(folder):
    """The address of a real Ray cluster on this machine (ray.cluster_utils.Cluster): a head node
    and a second node whose PATH has no bwrap (a machine without the sandbox), one CPU each."""
    import ray
    from ray.cluster_utils import Cluster
    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    made.add_node(num_cpus=1, env_vars={"PATH": _path_without_bwrap(folder)})
    made.wait_for_nodes()
    try:
        yield made.address
    finally:
        ray.shutdown()
        made.shutdown()


def _path_without_bwrap(folder):
    """A PATH with every program of this one but bwrap (a worker needs the others to start)."""
    for place in os.environ["PATH"].split(os.pathsep):
        for program in Path(place).glob("*") if Path(place).is_dir() else ():
            if program.name != "bwrap" and not (folder / program.name).exists():
                (folder / program.name).symlink_to(program)
    return str(folder)


class Repairs:
    """A loopback OpenAI-compatible server that answers by the conversation, so attempts in any
    order each get the sample's repair: a replace_text call, then "Fixed." once a tool answered.
    `on_request(n)` runs in the server before its n-th answer (from 1); what it returns, if
    anything, is the answer instead."""

    def __init__(self, on_request=lambda n: None):
        from testing.fake_openai import FakeOpenAI

        class Server(FakeOpenAI):
            def next_turn(server, body):
                server.requests.append(body)
                return on_request(len(server.requests)) or self.answer(body)
        self.server = Server()

    @staticmethod
    def answer(body):
        from testing.fake_openai import llama_cpp_call, text
        if any(message.get("role") == "tool" for message in body["messages"]):
            return text("Fixed.")
        return llama_cpp_call("replace_text", json.dumps({"old": FIX_OLD, "new": FIX_NEW}))

    def __enter__(self):
        return self.server.__enter__()

    def __exit__(self, *exc):
        self.server.__exit__(*exc)


def openai_flags(*servers):
    """evaluate.py's flags for the sample task against these loopback servers."""
    return ["--api", "openai", *[flag for s in servers for flag in ("--base-url", s.url)], "--model",
            "qwen2.5-coder-1.5b", "--tasks", "path_rules"]
