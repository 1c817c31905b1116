"""One attempt, run in a worker process (or a Ray task, evaluation/cluster.py): a fresh copy of the task, the loop, the verdict, the
grades, and the attempt file, saved the moment it is done.

`run_attempt(job)` builds its chat (the model its ModelChoice names, or a built-in scripted one),
records the run with `runs.recording.run_recorded` exactly as record_run.py does, grades it,
and saves it to the slot's file. It returns only where the file is: the main process reads
the attempt back from disk, so nothing a model produced (however deep or large) has to cross
the process boundary.

What this file deliberately is not: a judge of the lost attempts (`lost_to_server` says which
stops were the server's fault) or the place where attempts are chosen (runner.py).
"""
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from evaluation.grades import claim, cost, grade
from models.scripted_attempts import attempt_script
from models.scripted_model import scripted_attempt
from models.scripted_turns import ScriptedTurns
from repo_tools import RepoTools
from attempt.adapters import make_model, seed_for
from runs.recording import recording_of, run_recorded
from runs.recording_file import save
from attempt.side_by_side import run_search
from attempt.servers import Servers, lost_search, lost_to_server
from workspace.task_catalog import fresh_copy

# The scripted models built in, by name: (about, turns) of run `number` (from 1) of an attempt.
BUILT_IN = {"attempts": lambda job, number: attempt_script(job.task, number),
            "small-model": lambda job, number: scripted_attempt(job.task, job.settings)}


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


def run_attempt(job):
    """Run, grade and save one attempt (one run, or one search); return {"attempt_id", "path"}, or
    {"attempt_id", "path": None, "infra_failure"} when it could not start (every server had failed)."""
    task, started, scripts = job.task, time.perf_counter(), {}
    servers = attempt_servers(job)
    with tempfile.TemporaryDirectory(prefix="attempt-", dir=job.scratch) as folder:
        if job.settings.candidates > 1:
            body, _ = run_search(task, job.settings, lambda i, url: _chat(job, i, url, scripts), servers,
                                 folder=folder, all_candidates=job.all_candidates)
            url = body and next(c["server"] for c in body["candidates"] if c["index"] == body["search"]["shown"])
        else:
            body, url = _one_run(job, servers, folder, scripts)
    if body is None:  # nothing ran: no file (the slot stays empty, and the same command runs it)
        return {"attempt_id": f"{task.name}-{job.k}", "path": None,
                "infra_failure": f"every model server had failed ({', '.join(map(str, servers.urls))})"}
    shown = _shown_index(body)
    attempt = {**recording_of(body, source=job.model.source, about=scripts.get(shown, job.model.about),
                              model=job.info, server=job.model.server(url),
                              adapter=_adapter(job, shown)),
               "attempt_id": f"{task.name}-{job.k}", "commit": job.commit,
               "seconds": round(time.perf_counter() - started, 2), **cost(body),
               **({"node": job.node} if job.node else {})}
    if lost_to_server(body["stop"]):
        attempt["infra_failure"] = body["stop"].get("error", "model_error")
    elif lost_search(body):  # the lost candidates might have passed: the same command runs it again
        attempt["infra_failure"] = lost_search(body)
    else:
        attempt.update(grades=grade(attempt, task), claim=claim(attempt))
    save(job.path, attempt)
    return {"attempt_id": attempt["attempt_id"], "path": job.path, "lost": "infra_failure" in attempt}


def attempt_servers(job):
    """The servers every attempt of the evaluation shares (their slots live in its scratch folder,
    or, on a Ray cluster, in one actor)."""
    if job.slots is not None:
        return job.slots
    return Servers(job.model.urls or ["scripted"], job.parallel, Path(job.scratch) / "servers")


def _one_run(job, servers, folder, scripts):
    """A single run (candidates=1), as record_run.py makes one, on the least busy server; None
    when every server has failed. A server that fails here is marked for every later attempt.
    Returns (body, the server's URL)."""
    with servers.take() as url:
        if url is None:
            return None, None
        chat, _ = _chat(job, 1, url, scripts)
        body = run_recorded(chat, RepoTools(fresh_copy(job.task, folder), task=job.task), job.settings)
    if lost_to_server(body["stop"]):
        servers.lost(url, body["stop"].get("error"))
    else:
        servers.answered(url)
    return body, url


def _chat(job, index, url, scripts):
    """(chat, seed) for candidate `index` of this attempt: a scripted queue of turns, or the
    model on `url`. Attempt k, candidate i of N is run (k-1)·N + i of the attempt's choice, and
    gets that run's seed (attempt.adapters.seed_for): each records the seed it was sent."""
    number = _run_number(job, index)
    if job.model.api == "scripted":
        about, turns = BUILT_IN[job.model.name](job, number)
        scripts[index] = about
        return ScriptedTurns(*turns), None
    return make_model(job.model, url, seed_for(job.model, number)), seed_for(job.model, number)


def _run_number(job, index):
    return (job.k - 1) * job.settings.candidates + index


def _shown_index(body):
    return body["search"]["shown"] if "search" in body else 1


def _adapter(job, shown):
    """The adapter's options as sent to the run at the top of the recording (its seed)."""
    if job.model.api == "scripted":
        return {}
    return make_model(job.model, None, seed_for(job.model, _run_number(job, shown or 1))).recorded()
