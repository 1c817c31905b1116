"""One attempt, run in a worker process: a fresh copy of the task, the loop, the verdict, the
grades, and the attempt file, saved the moment it is done.

`run_attempt(job)` builds its chat (the model the flags name, or a shipped scripted attempt),
records the run with `runs.recording.run_recorded` exactly as record_run.py does, grades it,
and saves it to the slot's file. It returns only where the file is: the main process reads
the attempt back from disk, so nothing a model produced (however deep or large) has to cross
the process boundary.

What this file deliberately is not: a judge of the lost attempts (`lost_to_server` says which
stops were the server's fault) or the place where attempts are chosen (runner.py).
"""
import argparse
import tempfile
import time
from dataclasses import dataclass

from evaluation.grades import claim, grade, prompt_tokens
from evaluation.scripted_attempts import attempt_script
from evaluation.scripted_model import scripted_attempt
from evaluation.scripted_turns import ScriptedTurns
from local_model import OPTIONS
from repo_tools import RepoTools
from runs.flags import make_model
from runs.recording import recording_of, run_recorded, save
from workspace.task_catalog import fresh_copy


@dataclass(frozen=True)
class Job:
    """Everything a worker needs for one attempt; it crosses the process boundary, so plain."""
    task: object          # workspace.task_catalog.Task
    k: int
    settings: object      # agent_loop.LoopSettings
    model_args: object    # the parsed model flags (None when scripted)
    scripted: str         # None (a model), "plan" (evaluate's shipped plan) or "settings"
    info: dict            # the model's name and digest, checked once before any attempt
    commit: str
    path: str             # the slot's attempt file
    scratch: str          # the folder the task copy goes in (removed by the main process)


def run_attempt(job):
    """Run, grade and save one attempt; return {"attempt_id", "path"}."""
    task, started = job.task, time.perf_counter()
    chat, source, about, server = _chat(job)
    with tempfile.TemporaryDirectory(prefix="attempt-", dir=job.scratch) as folder:
        tools = RepoTools(fresh_copy(task, folder), task=task)
        body = run_recorded(chat, tools, job.settings)
    attempt = {**recording_of(body, source=source, about=about, model=job.info, server=server,
                              adapter=chat.recorded() if hasattr(chat, "recorded") else {}),
               "attempt_id": f"{task.name}-{job.k}", "commit": job.commit,
               "seconds": round(time.perf_counter() - started, 2), "prompt_tokens": prompt_tokens(body)}
    if lost_to_server(body["stop"]):
        attempt["infra_failure"] = body["stop"].get("error", "model_error")
    else:
        attempt.update(grades=grade(attempt, task), claim=claim(attempt))
    save(job.path, attempt)
    return {"attempt_id": attempt["attempt_id"], "path": job.path}


def _chat(job):
    """(chat, source, about, server) for the attempt: a scripted queue of turns or the model."""
    if job.scripted:
        about, turns = (scripted_attempt(job.task, job.settings) if job.scripted == "settings"
                        else attempt_script(job.task, job.k))
        return ScriptedTurns(*turns), "scripted", about, {"api": "scripted", "url": None}
    chat = make_model(attempt_args(job.model_args, job.k))
    return chat, "live", None, {"api": job.model_args.api, "url": chat.url}


def attempt_args(args, k):
    """The model flags for attempt k: its own seed (the given one, or the adapters' default,
    plus k - 1). With one seed for all, k attempts of one prompt would be near-repeats, and
    pass@k would count the same answer k times. Each attempt records the seed it was sent."""
    seed = OPTIONS["seed"] if args.seed is None else args.seed
    return argparse.Namespace(**{**vars(args), "seed": seed + k - 1})


def lost_to_server(stop):
    """Was the attempt lost to the server (down, gone, the model missing), not failed by the
    model? The adapters turn every failure of the server or the connection into
    ModelUnavailable; anything else that stopped the stream (a reply too deep to decode, a
    chunk no adapter can read) would happen again on every retry, so it is the attempt's result."""
    return stop.get("reason") == "model_error" and str(stop.get("error", "")).startswith("ModelUnavailable")
