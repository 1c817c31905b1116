"""The flags of a run on a Ray cluster (evaluate.py, improve.py): `--ray [ADDRESS]` and
`--require-sandbox`, turned into an `OnRay` (or None: the local pool of worker processes).

What this file deliberately is not: the cluster itself (evaluation/cluster.py), or the flags every
command line shares (shared_flags.py).
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class OnRay:
    """Run the attempts on a Ray cluster (evaluation/cluster.py): at `address` ("auto": the
    `ray start --head` on this machine; None: a local one started on the spot)."""
    address: str = None
    require_sandbox: bool = False  # nodes without bubblewrap are sent no work


def add_cluster_flags(parser):
    """--ray [ADDRESS] and --require-sandbox (evaluate.py, improve.py)."""
    parser.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                        help="run every attempt as a Ray task on the cluster at ADDRESS (auto: the one `ray start "
                             "--head` started here; no value: a local one, started on the spot)")
    parser.add_argument("--require-sandbox", action="store_true",
                        help="refuse to run tests unsandboxed; with --ray, nodes without bubblewrap get no work")


def cluster_choice(args):
    """The OnRay the flags name, or None (the local pool of worker processes, where a
    --require-sandbox left in `args` asks this machine: `local_sandbox_problem`)."""
    ray = args.ray
    del args.ray
    return OnRay(ray or None, args.require_sandbox) if ray is not None else None


def local_sandbox_problem(args):
    """Why the attempts cannot run here under --require-sandbox without --ray, or None."""
    from workspace import sandbox
    if args.require_sandbox and args.ray is None and sandbox.detect()[0] == "none":
        return f"{sandbox.detect()[1]} (install bubblewrap, or drop --require-sandbox)"
    return None
