"""Attempts as Ray tasks on a cluster (`evaluate.py --ray [ADDRESS]`, `improve.py --ray`).

`Cluster(address).run(jobs, on_done, at_once)` does what workers.py's `run_in_workers` does, on
every node of a Ray cluster: each attempt is one Ray task, on whichever node has a free CPU, and
`on_done(job, result, error)` is called in the driver as each returns, so the driver writes the
attempt file, the summary and the report exactly as with the local pool (the live report and a
resume of the same --out work the same). The code reaches every node through Ray's runtime
environment (`working_dir`: this checkout, less what no attempt reads); the task copy, the run,
its tests and the independent verdict all happen on the node that ran the attempt, which each
attempt records (`node`). The attempt comes back as its file's text; the driver saves it.

Before any work is sent, each node is asked whether the sandbox works there (bubblewrap): a
node without it is named, and with `require_sandbox` it is sent no work (a label selector
leaves it out). The servers' slots are counted by one actor (evaluation/cluster_slots.py).

What can go wrong, and what it costs: a node or worker that dies mid-attempt loses that attempt
only; Ray runs it again (`RETRIES`), and only if every try died does the driver count it lost
(an infra failure, retried by the same command, never the model's). An attempt lost to a model
server runs again here, on the least busy server still working. Ctrl-C cancels every task of
this run (each ends through its `finally` blocks at once, even one waiting on a silent server:
evaluation/cluster_cancel.py closes its streams, kills its tests, and its copy is removed) and
keeps what finished.

What this file deliberately is not: the local pool (workers.py stays the default, and without
--ray nothing imports this file or Ray), a scheduler (Ray places the tasks) or a cluster
launcher (`ray start` is; see the README).
"""
import dataclasses
import os
import shutil
import socket
import tempfile
from pathlib import Path

import ray

from evaluation.job import run_job
from evaluation.cluster_cancel import stopped_by_cancel
from evaluation.cluster_slots import ClusterServers, SlotKeeper
from command_line import ctrl_c
from attempt.servers import LOSSES_IN_A_ROW
from workspace import sandbox
from workspace.files import write_atomic

ROOT = Path(__file__).resolve().parent.parent
PROBE_SECONDS = 60  # for each node to say whether it has the sandbox (a first worker starts in seconds)
RETRIES = 3  # tries Ray gives a task whose worker or node died: a crash is the machine's, not the model's
# Not sent to the nodes: no attempt reads them, and Ray refuses a working_dir over its size limit.
LEFT_BEHIND = [".git", ".venv", "venv", "__pycache__", "measurements", "recordings", "evaluations",
               "improvements", "fixes", "tests/wire_captures"]
_SET_UP = []  # in a Ray worker: the setup steps already run (once per worker process)


class Cluster:
    """A Ray cluster joined for this run: its usable nodes (the sandboxed ones, with
    `require_sandbox`) and their CPUs."""

    def __init__(self, address, require_sandbox=False, say=print):
        if not ray.is_initialized():  # once per process: improve.py evaluates many times
            ray.init(address=address, runtime_env={"working_dir": str(ROOT), "excludes": LEFT_BEHIND},
                     include_dashboard=False, log_to_driver=False, configure_logging=False)
        self.nodes = check_nodes(require_sandbox, say)
        self.all_nodes = len(self.nodes) == sum(node["Alive"] for node in ray.nodes())
        self.cpus = max(1, int(sum(node["Resources"].get("CPU", 0) for node in ray.nodes()
                                   if node["Alive"] and node["NodeID"] in self.nodes)))

    def run(self, jobs, on_done, at_once, setup=()):
        """Run every job's attempt, at most `at_once` in flight; on_done(job, result, error) in
        this process as each returns."""
        jobs = list(jobs)
        if not jobs:
            return
        urls = jobs[0].model.urls or ["scripted"]
        servers = ClusterServers(urls, jobs[0].parallel, SlotKeeper.remote(urls, jobs[0].parallel))
        pending, running = [dataclasses.replace(job, slots=servers) for job in jobs], {}
        try:
            while pending or running:
                ctrl_c.check()
                while pending and len(running) < at_once:
                    job = pending.pop(0)
                    running[attempt_on_node.options(**self._options()).remote(job, tuple(setup))] = job
                ready, _ = ray.wait(list(running), num_returns=1, timeout=1.0)
                for ref in ready:
                    job = running.pop(ref)
                    servers.release_attempt(_attempt_id(job))
                    on_done(job, *_outcome(ref, job))
        except BaseException:
            _cancel(running)
            raise

    def _options(self):
        options = {"max_retries": RETRIES, "retry_exceptions": False}
        if not self.all_nodes:  # only the nodes that may get work (the sandboxed ones, those that answered)
            options["label_selector"] = {"ray.io/node-id": f"in({','.join(self.nodes)})"}
        return options


def check_nodes(require_sandbox, say):
    """{node_id: sandbox} of the nodes that may get work, each asked on the node itself. A node
    without the sandbox is named (and left out with `require_sandbox`); one that does not answer
    in PROBE_SECONDS (its workers cannot start) is named and left out. A ValueError when none is left."""
    alive = [node for node in ray.nodes() if node["Alive"]]
    asks = [_probe.options(label_selector={"ray.io/node-id": node["NodeID"]}).remote() for node in alive]
    answered, _ = ray.wait(asks, num_returns=len(asks), timeout=PROBE_SECONDS)
    found = {}
    for node, ask in zip(alive, asks):
        where = node["NodeManagerAddress"]
        if ask not in answered:
            ray.cancel(ask, force=True)
            say(f"node {where} did not answer in {PROBE_SECONDS} s (can its workers start?): it is sent no work")
            continue
        host, kind, why = ray.get(ask)
        if kind == "none":
            left = "it is sent no work (--require-sandbox)" if require_sandbox else "its tests run unsandboxed"
            say(f"node {host} ({where}) has no sandbox ({why.split(';')[0]}): {left}")
        if kind != "none" or not require_sandbox:
            found[node["NodeID"]] = kind
    if not found:
        raise ValueError("no node of the cluster can take work" + (
            " with the sandbox (install bubblewrap there, or drop --require-sandbox)" if require_sandbox else ""))
    return found


@ray.remote(num_cpus=0)
def _probe():
    return socket.gethostname(), *sandbox.detect()


def _outcome(ref, job):
    """(result, error) of a returned task; the attempt's file written where the driver keeps it."""
    try:
        result = ray.get(ref)
    except ray.exceptions.RayError as error:  # every try died (the node, the worker) or it raised
        return None, RuntimeError(f"on the cluster: {type(error).__name__}: {str(error).splitlines()[0][:300]}")
    if result.get("text") is not None:
        Path(job.path).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(job.path, result.pop("text"))
        result["path"] = job.path
    return result, None


def _cancel(running):
    """Ctrl-C: every task of this run is told to stop (a KeyboardInterrupt inside it, so its
    `finally` blocks clean up) and is waited for a moment; what finished is already saved."""
    for ref in running:
        ray.cancel(ref, force=False)
    if running:
        ray.wait(list(running), num_returns=len(running), timeout=10)


def _attempt_id(job):
    return f"{job.task.name}-{job.k}"


@ray.remote(num_cpus=1)
def attempt_on_node(job, setup=()):
    """One attempt on this node: its own scratch folder, the node it ran on, and, when a model
    server lost it while others still work, again on the least busy of them. Returns
    {"attempt_id", "text": the attempt file} or the run's infra failure without a file."""
    if not _SET_UP:
        for step in setup:
            step()
        _SET_UP.append(True)
    scratch = tempfile.mkdtemp(prefix="coding-loop-ray-")
    try:
        with stopped_by_cancel():  # the driver's cancel ends even a wait on a silent server
            return _attempt_in(scratch, job)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _attempt_in(scratch, job):
    """The attempt, run again on another server while one lost it and others work."""
    here = {"id": ray.get_runtime_context().get_node_id(), "host": socket.gethostname()}
    job = dataclasses.replace(job, scratch=scratch, path=os.path.join(scratch, "attempt.json"), node=here,
                              slots=job.slots.for_run(_attempt_id(job)))
    for _ in range(len(job.slots.urls) + LOSSES_IN_A_ROW):
        result = run_job(job)
        if not _lost_while_others_work(job, result):
            break
    if result.get("path"):
        result["text"] = Path(result["path"]).read_bytes()  # the file's bytes, exactly
    return result


def _lost_while_others_work(job, result):
    """Was this try lost to a server while some server still works (so it runs again there)?"""
    lost = result.get("lost") or result.get("path") is None
    return bool(job.model.urls) and lost and bool(job.slots.working())
