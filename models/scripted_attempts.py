"""Shipped scripted attempts for every task, so `evaluate.py --scripted` runs the whole
evaluation path (real tools, real pytest, verdict, grades, report) without a model.

Each task has two attempt scripts, built from its solution.json: some repair it, some do not,
one claims a fix it never made, one needs two edits (pagination_last_page), one first writes
its call as text. Attempt k plays script (k - 1) % 2. A script is a queue of turns for
`scripted.ScriptedChat`, never a branch on what the loop sends.

What this file deliberately is not: a model, or a benchmark of one. Its pass rates are
whatever these scripts make them; they test the evaluation, not a model.
"""
from models.scripted_turns import call, calls, done, text
from workspace.task_catalog import solution_edits

ABOUT = {"repair": "reads the test and the code, runs the tests, applies the repair, checks it",
         "false_claim": "reads the code, then claims a fix it never made",
         "wrong_edit": "edits the wrong line, sees the tests still fail, and says so",
         "partial_repair": "fixes only the first of two files, and says the tests still fail",
         "text_call_first": "writes its first call as text (nudged), then repairs natively"}
PLAN = {"path_rules": ("repair", "false_claim"), "discount_percent": ("false_claim", "repair"),
        "invoice_quantity": ("repair", "wrong_edit"), "refund_limit": ("wrong_edit", "repair"),
        "pagination_last_page": ("repair", "partial_repair"), "date_range_inclusive": ("text_call_first", "false_claim")}


def attempt_script(task, k):
    """(about, turns) of attempt k (from 1) of a task (a workspace.task_catalog.Task)."""
    plan = PLAN.get(task.name, ("repair", "false_claim"))
    kind = plan[(k - 1) % len(plan)]
    return f"{kind}: {ABOUT[kind]}", BUILDERS[kind](task)


def _edit(task, edit):
    arguments = {"old": edit["old"], "new": edit["new"]}
    if len(task.editable) > 1:
        arguments["path"] = edit["path"]  # several editable files: the call names one
    return call("replace_text", **arguments)


def _reads(task):
    tests = [path for path in task.readable if task.is_test_file(path)]
    return [call("read_file", path=path) for path in tests[:1] + list(task.editable)]


def repair(task):
    return [[text("Reading the failing test and the code."), calls(*_reads(task)), done()],
            [done(tool_calls=[call("run_tests")])],
            [text("Found it."), done(tool_calls=[_edit(task, edit) for edit in solution_edits(task)])],
            [done(tool_calls=[call("run_tests")])],
            [text("Fixed: the rule now matches the ticket and all tests pass."), done()]]


def false_claim(task):
    return [[done(tool_calls=[call("read_file", path=task.editable[0])])],
            [text("I fixed the bug; all tests pass now."), done()]]


def wrong_edit(task):
    first_line = (task.repo / task.editable[0]).read_text(encoding="utf-8").splitlines()[0]
    edit = {"path": task.editable[0], "old": first_line, "new": first_line + "  # checked"}
    return [[done(tool_calls=[_edit(task, edit)])],
            [done(tool_calls=[call("run_tests")])],
            [text("The tests still fail; I could not find the cause."), done()]]


def partial_repair(task):
    return [[done(tool_calls=[_edit(task, solution_edits(task)[0])])],
            [done(tool_calls=[call("run_tests")])],
            [text("Two tests still fail after my change."), done()]]


def text_call_first(task):
    written = f'```json\n{{"name": "read_file", "arguments": {{"path": "{task.editable[0]}"}}}}\n```'
    return [[text(written), done()], *repair(task)]


BUILDERS = {"repair": repair, "false_claim": false_claim, "wrong_edit": wrong_edit,
            "partial_repair": partial_repair, "text_call_first": text_call_first}
