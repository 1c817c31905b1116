"""A task built from a user's own repository: its ticket, what the model may read and edit.

`build_task(...)` makes a `UserTask`, a workspace.task_catalog.Task (so the tools, the
recorder and the verdict treat it like any shipped task) whose test files are the project's
test code (workspace/user_tests.py: what pytest collected and the support code the tests
import) and whose pytest command is the project's own (project_pytest.py). `choose_files` picks,
from the repository's files as sorted_files.py sorted them once, the readable files within a budget (`--readable`'s, then what the failing tests use, the code, the
tests, packaging and tool configuration last) and the editable ones (the readable code, or
`--editable` globs), and says in one line each what it left out and why.
`task_spec` / `recorded_task` store the task in a recording and rebuild it for a replay.

What this file deliberately is not: a reader of the user's tree (repo.py copies it once;
everything here looks at that copy) or a judge (verdict.py is).
"""
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from fixing.left_out import KEPT, kept, shown, why_none
from fixing.project_pytest import TRACEBACKS, project_command, tracebacks_of
from fixing.repo import starting_tree
from fixing.sorted_files import matching
from workspace.file_limits import READ_CHARS
from workspace.task_catalog import SAMPLE_TASK, Task, load_task

READ_BUDGET = 200_000  # characters of readable files in all: what a model could read in one run
READ_FILES = 60        # file names in the prompt and in read_file's description


@dataclass(frozen=True)
class UserTask(Task):
    tests: tuple = ()  # the project's test files: the ones pytest collected
    keep: object = field(default=None, compare=False, repr=False)  # a replay's temporary tree, alive with the task
    preload_as_listed: bool = False  # the preload shows `readable` in its order (a recording from before: editable first)
    keeps_links = True  # links inside the repository, as starting_tree copied them (never editable)
    left_out: tuple = ()  # "path (why)": what the copy and the choice left out (fixing/left_out.py: kept)


def build_task(name, ticket, tree, tests, command, *, readable, editable, left_out=()):
    """The UserTask for the project `name` whose starting tree is at `tree`; the preload shows
    the readable files in their order (choose_files puts what the failing tests use first).
    `left_out`: "path (why)" for each file left out, kept in the recording (the first few hundred)."""
    return UserTask(name=f"fix:{name}", title=f"fix the failing tests of {name}", ticket=ticket,
                    readable=tuple(readable), editable=tuple(editable), repo=Path(tree), pytest=command,
                    tests=tuple(sorted(tests)), preload_as_listed=True, left_out=kept(left_out))


def default_ticket(failing, start):
    """The failing tests' names and errors, as a user would paste them."""
    if not failing:
        return (f"The tests fail ({start['failed']} failed, {start['errors']} errors); run them to see why, "
                "and make them pass by fixing the code, not the tests.")
    lines = [f"- {test}" + (f": {message[:300]}" if message else "") for test, message in failing]
    return "These tests fail:\n" + "\n".join(lines) + "\nMake them pass by fixing the code, not the tests."


class Chosen(NamedTuple):
    """What choose_files chose, and what it did not."""
    readable: list
    editable: list
    notes: list      # one line per thing a user should know
    left_out: list   # "path (why)": each file it considered and did not choose (not text, past the budget)
    why_none: str    # when nothing is editable: what was found and why each was not chosen (bounded)


def choose_files(found, *, readable_globs=(), editable_globs=()):
    """The files the model may read and edit (a Chosen), from the repository's SortedFiles.
    Readable, in the order a model is shown them: `--readable`'s, the first ones (first_files),
    the code, the tests, then packaging and tool configuration (readable, never editable by
    default). Only these, and `--editable`'s, are looked at; each one that is not text the tools
    can edit is named with why."""
    files, python, sizes, code = list(found.kinds), found.python, found.sizes, found.of("code")
    chosen = matching(files, editable_globs)
    wanted = [p for p in dict.fromkeys([*matching(files, readable_globs), *first_files(found), *code,
                                        *found.of("test"), *python]) if p in found.kinds]
    not_text = [f"{p} ({sizes[p]})" for p in wanted if isinstance(sizes[p], str) and p not in chosen]
    notes = [f"left out, not text the model can read and edit: {shown(not_text)}"] if not_text else []
    # An empty file (an empty __init__.py) has nothing to read or edit: not worth a word.
    readable, left = _within_budget([p for p in wanted if isinstance(sizes[p], int) and sizes[p]], sizes, notes)
    left_out = [*not_text, *(f"{p} (past the read budget)" for p in left)]
    if not editable_globs:
        editable = [p for p in readable if p in code]
        return Chosen(readable, editable, notes, left_out, "" if editable else why_none(
            code, sizes, left, ("Python file", "outside the tests and tool configuration"), python))
    editable = _editable(chosen, found, notes, left_out)
    return Chosen([*readable, *[p for p in editable if p not in readable]], editable, notes, left_out,
                  "" if editable else why_none(chosen, sizes, left, ("file", "--editable matched"), python))


def first_files(found):
    """What a model must be shown first, because a small model answers about the first file it
    sees: the code the failures' tracebacks point at, then the code the failing tests call, in
    the order they name it (a failed assertion has no frame in the code), then their own files."""
    code = found.of("code", [*found.blamed, *found.used])
    return list(dict.fromkeys([*code, *found.failing, *found.blamed]))


def _within_budget(paths, sizes, notes):
    """(readable, left out): `paths` in order while READ_FILES and READ_BUDGET last. A file counts
    what read_file shows of it at most, so a big module costs no more than READ_CHARS."""
    readable, left, used = [], [], 0
    for path in paths:
        cost = min(sizes[path], READ_CHARS)
        if len(readable) < READ_FILES and used + cost <= READ_BUDGET:
            readable.append(path)
            used += cost
        else:
            left.append(path)
    if left:
        notes.append(f"budget: {len(readable)} files readable ({used} characters), {len(left)} left out: "
                     f"{shown(left)} (choose with --readable and --editable)")
    return readable, left


def _editable(paths, found, notes, left_out):
    """The files `--editable` chose that can be edited as text; the rest are named in notes."""
    sizes = found.sizes
    skipped = [f"{p} ({sizes.get(p)})" for p in paths if not isinstance(sizes.get(p), int)]
    if skipped:
        notes.append(f"skipped from --editable: {shown(skipped)}")
        left_out.extend(skipped)
    editable = [p for p in paths if isinstance(sizes.get(p), int)]
    chosen_tests = found.of("test", editable)
    if chosen_tests:
        notes.append(f"--editable includes test files ({shown(chosen_tests)}): a patch that changes them is never "
                     "applied")
    return editable


def task_spec(task, tests_args):
    """The task as a recording keeps it: enough to rebuild it (with the repository at hand)."""
    return {"name": task.name, "title": task.title, "ticket": task.ticket, "readable": list(task.readable),
            "editable": list(task.editable), "tests": list(task.tests), "repo": task.pytest.inside,
            "python": task.pytest.python, "tests_args": list(tests_args), "timeout": task.pytest.timeout,
            "preload_as_listed": task.preload_as_listed, "left_out": list(task.left_out),
            "tracebacks": tracebacks_of(task.pytest)}


def recorded_task(recording, tasks_dir=None, tree=True):
    """The task a recording was made on: one of the tasks (shipped, or in `tasks_dir`) by name,
    or the one fix.py built (its `task_spec`). With `tree`, that one's starting tree is copied
    again from the repository."""
    spec = recording.get("task_spec")
    if spec is None:
        return load_task(recording.get("task_name", SAMPLE_TASK), tasks_dir)
    return task_from_spec(spec, list(recording["sample"]) if tree else None)


def task_from_spec(spec, files=None):
    """Rebuild a UserTask (a recording is untrusted: every field is checked; ValueError)."""
    problem = spec_problem(spec, files or [])
    if problem:
        raise ValueError(f"task_spec: {problem}")
    repo, keep = Path(spec["repo"]), None
    if files is not None:
        if not repo.is_dir():
            raise ValueError(f"the repository {spec['repo']} is not here; a fix.py recording replays beside it")
        keep = tempfile.TemporaryDirectory(prefix="coding-loop-replay-tree-")
        starting_tree(repo, files, keep.name)
        repo = Path(keep.name)
    # A recording from before fix.py asked for short tracebacks has none: its tests ran pytest's way.
    command = project_command(spec["repo"], spec["python"], spec["tests_args"], spec["timeout"], spec.get("tracebacks"))
    return UserTask(name=spec["name"], title=spec["title"], ticket=spec["ticket"], readable=tuple(spec["readable"]),
                    editable=tuple(spec["editable"]), repo=repo, pytest=command, tests=tuple(spec["tests"]),
                    keep=keep, preload_as_listed=spec.get("preload_as_listed", False),
                    left_out=tuple(spec.get("left_out", ())))


def spec_problem(spec, files):
    if not isinstance(spec, dict):
        return "must be an object"
    texts = ("name", "title", "ticket", "repo", "python")
    lists = ("readable", "editable", "tests", "tests_args")
    if not all(isinstance(spec.get(k), str) for k in texts) or not all(
            isinstance(spec.get(k), list) and all(isinstance(v, str) for v in spec[k]) for k in lists):
        return f"needs text {', '.join(texts)} and lists of text {', '.join(lists)}"
    if not isinstance(spec.get("timeout"), (int, float)) or isinstance(spec["timeout"], bool) or spec["timeout"] <= 0:
        return "timeout must be a positive number"
    if not isinstance(spec.get("preload_as_listed", False), bool):
        return "preload_as_listed must be true or false"
    if spec.get("tracebacks") not in (None, TRACEBACKS):  # it becomes an argument of pytest
        return f"tracebacks must be {TRACEBACKS!r} or absent"
    left_out = spec.get("left_out", [])  # recordings from before it have none
    if not isinstance(left_out, list) or len(left_out) > KEPT + 1 or not all(isinstance(v, str) for v in left_out):
        return f"left_out must be a list of at most {KEPT + 1} texts"
    if not os.path.isabs(spec["repo"]) or not os.path.basename(spec["python"]).startswith("python"):
        return "repo must be an absolute path and python an interpreter named python*"
    paths = [*spec["readable"], *spec["editable"], *spec["tests"], *files]
    if any(os.path.isabs(p) or ".." in Path(p).parts for p in paths):
        return "every file must be a relative path inside the repository"
    return None
