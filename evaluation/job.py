"""One attempt of an evaluation, run in a worker process (or a Ray task, evaluation/cluster.py):
the attempt itself (attempt/run.py, exactly as record_run.py runs one), its grades, and its
file, saved the moment it is done.

`run_job(job)` runs the attempt a `Job` describes, grades it, and saves it to the slot's file.
It returns only where the file is: the main process reads the attempt back from disk, so
nothing a model produced (however deep or large) has to cross the process boundary.

What this file deliberately is not: an attempt (attempt/ runs it), a judge of the lost attempts
(`lost_to_server` says which stops were the server's fault), or the place where attempts are
chosen (runner.py).
"""
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from attempt.run import Attempt, run_attempt
from attempt.servers import Servers, lost_search, lost_to_server
from evaluation.grades import claim, cost, grade
from runs.recording_file import save


@dataclass(frozen=True)
class Job:
    """Everything a worker needs for one attempt; it crosses the process boundary, so plain."""
    task: object          # workspace.task_catalog.Task
    k: int
    settings: object      # agent_loop.LoopSettings (its `candidates`: trajectories in this attempt)
    model: object         # models.choice.ModelChoice: a real model, or a built-in scripted one
    info: dict            # the model's name and digest, checked once before any attempt
    commit: str
    path: str             # the slot's attempt file
    scratch: str          # the folder the task copy goes in (removed by the main process)
    all_candidates: bool = False  # run every candidate even after one passed (coverage)
    parallel: int = 1     # requests at once on each server, shared by every worker (attempt/servers.py)
    slots: object = None  # on a Ray cluster: the servers' slots, counted by an actor (evaluation/cluster_slots.py)
    node: dict = None     # on a Ray cluster: the node this attempt runs on, recorded with it


def run_job(job):
    """Run, grade and save one attempt (one run, or one search); return {"attempt_id", "path"}, or
    {"attempt_id", "path": None, "infra_failure"} when it could not start (every server had failed)."""
    started, attempt_id = time.perf_counter(), f"{job.task.name}-{job.k}"
    servers = attempt_servers(job)
    with tempfile.TemporaryDirectory(prefix="attempt-", dir=job.scratch) as folder:
        ran = run_attempt(Attempt(job.task, job.settings, job.model, job.info, folder,
                                  all_candidates=job.all_candidates, number=job.k, servers=servers))
    if ran is None:  # nothing ran: no file (the slot stays empty, and the same command runs it)
        return {"attempt_id": attempt_id, "path": None,
                "infra_failure": f"every model server had failed ({', '.join(map(str, servers.urls))})"}
    attempt = {**ran.recording, "attempt_id": attempt_id, "commit": job.commit,
               "seconds": round(time.perf_counter() - started, 2), **cost(ran.recording),
               **({"node": job.node} if job.node else {})}
    if lost_to_server(attempt["stop"]):
        attempt["infra_failure"] = attempt["stop"].get("error", "model_error")
    elif lost_search(attempt):  # the lost candidates might have passed: the same command runs it again
        attempt["infra_failure"] = lost_search(attempt)
    else:
        attempt.update(grades=grade(attempt, job.task), claim=claim(attempt))
    save(job.path, attempt)
    return {"attempt_id": attempt_id, "path": job.path, "lost": "infra_failure" in attempt}


def attempt_servers(job):
    """The servers every attempt of the evaluation shares (their slots live in its scratch folder,
    or, on a Ray cluster, in one actor)."""
    if job.slots is not None:
        return job.slots
    return Servers(job.model.urls or ["scripted"], job.parallel, Path(job.scratch) / "servers")
