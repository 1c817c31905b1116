"""An evaluation, start to end: claim the folder, plan the slots, run what is left in worker
processes (or, with `cluster`, as Ray tasks: evaluation/cluster.py), and keep summary.json and report.html true after every finished attempt.

`evaluate(evaluation, labels, say)` is shared by evaluate.py (one configuration)
and improve.py (one call per iteration), with the Labels (evaluation/labels.py) every attempt
and summary carries. It never decides anything about the model: the
attempts are graded by evaluation/grades.py from their events and the independent verdict.

What this file deliberately is not: a command line (evaluate.py), the worker pool
(workers.py) or one attempt (job.py, and attempt/run.py under it).
"""
import json
from dataclasses import dataclass
from pathlib import Path

from evaluation.job import Job, attempt_servers, run_job
from evaluation.folder import EvaluationFolder
from evaluation.grades import summary_of
from evaluation.report import write_report
from evaluation.workers import run_in_workers, scratch_folder, stop_on_sigterm
from command_line.printer import clean
from runs.recording_file import load
from workspace.files import write_atomic
from workspace.task_catalog import task_names

@dataclass(frozen=True)
class Evaluation:
    """What to evaluate: tasks × attempts with one LoopSettings, against a model (or a scripted one)."""
    out: Path
    tasks: tuple            # workspace.task_catalog.Task objects
    attempts: int           # K: attempts per task
    settings: object        # agent_loop.LoopSettings
    model: object           # models.choice.ModelChoice: each worker builds its adapter from it
    jobs: int = 1           # attempts at once (None on a cluster: as many as its usable nodes have CPUs)
    all_candidates: bool = False  # a search runs every candidate (to measure coverage against N)
    # True (evaluate.py): the summary and the report cover every finished attempt in the folder,
    # so a resume with fewer tasks adds, never shrinks. False (improve.py): only the chosen slots
    # count, so an iteration's rates and evidence are its own tasks', whatever else the folder holds.
    whole_folder: bool = True
    cluster: object = None  # command_line.cluster_flags.OnRay: every attempt a Ray task on a cluster (None: the local pool)


def evaluate(evaluation, labels, say=print, on_attempt=None):
    """Run every unfinished slot; return {"summary", "attempts", "lost"} over the whole folder.
    `lost` lists the attempts lost to the server or the harness (retried by the same command).
    `on_attempt(attempts)` is called after each finished attempt (improve.py redraws its page)."""
    folder = EvaluationFolder(evaluation.out)
    folder.lock()
    try:
        folder.claim(evaluation.settings, evaluation.model.identity(evaluation.all_candidates))
        todo = _plan(folder, evaluation, say)
        finished = _counted(folder, evaluation)
        say(f"evaluating {clean(labels.model['name'])}: {len(evaluation.tasks)} tasks x {evaluation.attempts} attempts; "
            f"{len(finished)} already finished in {evaluation.out}, {len(todo)} to run, "
            f"{evaluation.jobs or 'as many as the cluster has CPUs'} at once{' on Ray' if evaluation.cluster else ''}")
        lost = _run(folder, evaluation, labels, todo, say=say, on_attempt=on_attempt)
        attempts = sorted(_counted(folder, evaluation), key=order)
        summary = _write(folder, evaluation, attempts + lost, labels)
        return {"summary": summary, "attempts": attempts, "lost": lost}
    finally:
        folder.unlock()


def _plan(folder, evaluation, say):
    """The slots still to run: never run, lost last time, or holding a file that does not fit."""
    todo = []
    for task in evaluation.tasks:
        for k in range(1, evaluation.attempts + 1):
            attempt, problem = folder.read_slot(task.name, k, evaluation.settings)
            if problem:
                say(f"{clean(problem)}: running it again")
            if attempt is None:
                todo.append((task, k))
    return todo


def _counted(folder, evaluation):
    """The finished attempts this evaluation counts: the folder's, or only its chosen slots'."""
    found = folder.finished(evaluation.settings)
    if evaluation.whole_folder:
        return found
    chosen = {f"{task.name}-{k}" for task in evaluation.tasks for k in range(1, evaluation.attempts + 1)}
    return [attempt for attempt in found if attempt["attempt_id"] in chosen]


def _run(folder, evaluation, labels, todo, *, say, on_attempt):
    """Run the slots in workers; after each, a progress line and a fresh summary and report."""
    before, done, lost = _counted(folder, evaluation), [], []
    total = len(before) + len(todo)

    named = set()

    def finished(job, result, error):
        attempt = _read_back(job, result, error)
        (lost if "infra_failure" in attempt else done).append(attempt)
        say(progress_line(attempt, len(before) + len(done) + len(lost), total, before + done))
        _name_failed_servers(job, named, say)
        _write(folder, evaluation, before + done + lost, labels, running=total)
        if on_attempt:
            on_attempt(before + done + lost)

    def jobs(scratch, at_once):
        return [Job(task, k, evaluation.settings, evaluation.model, labels.model, labels.commit,
                    str(folder.path(task.name, k)), scratch, evaluation.all_candidates, evaluation.model.parallel or at_once) for task, k in todo]

    with stop_on_sigterm(), scratch_folder() as scratch:
        if evaluation.cluster is None:
            run_in_workers(evaluation.jobs or 1, run_job, jobs(scratch, evaluation.jobs or 1), finished)
        else:
            _run_on_cluster(evaluation.cluster, evaluation.jobs, lambda at_once: jobs(scratch, at_once), finished, say)
    return lost


def _run_on_cluster(on_ray, at_once, jobs, finished, say):
    """Every attempt a Ray task (evaluation/cluster.py); Ray is imported here, and only here."""
    from evaluation import workers
    from evaluation.cluster import Cluster
    cluster = Cluster(on_ray.address, on_ray.require_sandbox, say)
    at_once = at_once or cluster.cpus
    cluster.run(jobs(at_once), finished, at_once, setup=workers.WORKER_SETUP)


def _name_failed_servers(job, named, say):
    """Say once of each server that failed in a worker: its work goes to the others (or, with
    none left, is lost and retried by the same command), never counted as the model's failure."""
    if not job.model.urls:  # a built-in scripted model: no server to fail
        return
    for url, why in attempt_servers(job).failures().items():
        if url not in named:
            named.add(url)
            say(f"server {clean(str(url))} failed ({clean(why)[:200]}): no more work goes to it in this run")


def _read_back(job, result, error):
    """The finished attempt as saved, or an infra failure when the worker or its file failed."""
    attempt_id = f"{job.task.name}-{job.k}"
    if error is None and result.get("infra_failure"):  # it never ran: no file was written
        return {"attempt_id": attempt_id, "task_name": job.task.name, "infra_failure": result["infra_failure"]}
    if error is None:
        try:
            return load(result["path"])
        except (OSError, ValueError) as problem:
            error = problem
    return {"attempt_id": attempt_id, "task_name": job.task.name,
            "infra_failure": f"the harness failed: {type(error).__name__}: {str(error)[:300]}"}


def _write(folder, evaluation, attempts, labels, running=None):
    """summary.json and report.html over every attempt in the folder (and those lost now)."""
    attempts = sorted(attempts, key=order)
    summary = summary_of(attempts, evaluation.attempts, labels.model, labels.commit, labels.dirty)
    write_atomic(folder.out / "summary.json", json.dumps(summary, indent=1) + "\n")
    write_report(folder.out, summary, attempts, running=running is not None, total=running)
    return summary


def progress_line(attempt, done, total, so_far):
    """One line per finished attempt, with the running pass rate."""
    graded = [a for a in so_far if "grades" in a]
    rate = f"{sum(a['verdict'] == 'repaired' for a in graded)}/{len(graded)} repaired so far"
    head = f"[{done:>3}/{total}] {clean(str(attempt['attempt_id'])):<28}"
    if "infra_failure" in attempt:
        return f"{head} infra failure: {clean(attempt['infra_failure'])[:120]}  ({rate})"
    flag = "  (claim contradicted)" if attempt["claim"]["contradicted"] else ""
    turns = sum(e["type"] == "model_start" for e in attempt["events"])
    tokens = f" {attempt['prompt_tokens']:>6} prompt tokens" if isinstance(attempt.get("prompt_tokens"), int) else ""
    return (f"{head} {clean(attempt['verdict']):<13} {clean(attempt['stop']['reason']):<22} {turns} turns "
            f"{attempt['seconds']:6.1f} s{tokens}  ({rate}){flag}")


def order(attempt):
    """Attempts in the catalogue's task order, then by attempt number."""
    name, _, k = str(attempt["attempt_id"]).rpartition("-")
    names = task_names()
    return (names.index(name) if name in names else len(names), name, int(k) if k.isdigit() else 0)
