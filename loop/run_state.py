"""What one run keeps from turn to turn, and its wall-clock budget.

`Run` holds a run's settings, tools and budget, the tool schemas it offers (chosen once), the
policies' memory (turn_policy.Watch), the conversation, and what the model has been shown of
the repository: under context="preload" the first message carries the failures and the files
(loop/context.py; a long file by definitions, loop/context_defs.py, around `focus`, the
definitions most likely at fault, ranked by localizing/), and `shown` decides what the model reads of each tool result.
`first_tests` are the tests a check of the harness runs first (check_first: loop/judge.py).

What this file deliberately is not: the loop (agent_loop.py says what happens in a turn).
"""
import time

from loop import context
from loop.context_defs import Answering
from loop import turn_policy as policy
from workspace.pytest_run import PytestCommand
from workspace.test_selection import failing_ids, narrowed

now = time.monotonic  # the deadline's clock; a module name so tests can swap in a fake one


class Run:
    """One run's state, from its first message to its stop."""

    def __init__(self, settings, tools, task, *, start_tests=None, cancel=None, focus=None):
        self.settings, self.tools, self.focus = settings, tools, focus  # focus: the ranking localizing/ gave agent_events
        # How each file is answered and shown (whole, or by definitions), and what was shown so far.
        self.answering = Answering.of(settings, focus, start_tests)
        self.reported = 0  # how many of answering.shown the events have reported
        self.schemas = [s for s in tools.schemas if s["function"]["name"] in settings.offered_tools]
        self.names = [s["function"]["name"] for s in self.schemas]
        self.budget, self.watch = Budget(settings.deadline, cancel), policy.Watch(settings.verify_finish)
        self.seen, self.changed = {}, []  # file texts the model was shown; files it edited, in order
        self.last_tests = start_tests  # the latest test run the model knows of
        if settings.context == "preload":  # whole texts: a long file is shown by definitions, not read_file's slice
            task, self.seen = context.preload(tools.task, start_tests, tools.file_text, prompt=task,
                                              blocks=settings.text_edits == "run",
                                              tool_edits="replace_text" in settings.offered_tools,
                                              hint=settings.answer_hint, answering=self.answering,
                                              reading=settings.pytest_reading)
        # A first message that shows a file by definitions gets the system prompt written for that form.
        system = settings.system_definitions if settings.system_definitions and self.answers_definitions() else settings.system
        self.messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
        self.first_tests = first_tests(settings, tools, start_tests)  # what a harness check runs first

    def answers_definitions(self):
        """Whether a file the model may edit was shown by definitions (a long test file's outline is
        not, under settings.editable_hint)."""
        editable = getattr(self.tools.task, "editable", ())
        return any(self.answering.asks_definitions(shown, editable) for shown in self.answering.shown)

    def shown(self, name, result):
        """What the model reads of a tool result (and what the run learns from it)."""
        if name == "replace_text" and isinstance(result, dict) and "replaced" in result:
            self.changed = [*dict.fromkeys([*self.changed, result.get("path")])]
        if name == "run_tests" and isinstance(result, dict) and "exit_code" in result:
            self.last_tests = result
        if self.settings.context != "preload":
            return result
        if name == "read_file" and isinstance(result, dict) and isinstance(result.get("text"), str):
            # A file answered by definitions is read that way too: its whole text would not fit.
            block = self.answering.block(result.get("path"), result["text"], context.FILES_BUDGET)
            if block:
                return {"path": result.get("path"), "by_definitions": block}
        return context.shown_result(name, result, self.seen, self.settings.pytest_reading)

    def failures(self):
        """Under "preload", the failures of the latest test run the model knows of (to remind a
        model whose code was refused what it is fixing); otherwise None."""
        if self.settings.context != "preload" or context.tests_passed(self.last_tests) or not isinstance(
                self.last_tests, dict):
            return None
        return context.compact_output(self.last_tests, self.settings.pytest_reading)["output"]

    def correction(self, result, broke=False):
        """Under "preload", what a correction after failing tests says: the failures and the
        current text of the files the model changed; otherwise None (the usual words). `broke`:
        they are tests the change broke (check_first), not the ones that failed at the start."""
        if self.settings.context != "preload":
            return None
        return context.correction_message(result, self.changed, self.tools.file_text,
                                          intro=policy.BROKE_INTRO if broke else "The tests still fail:",
                                          blocks=self.settings.text_edits == "run",
                                          tool_edits="replace_text" in self.settings.offered_tools,
                                          hint=self.settings.answer_hint, answering=self.answering,
                                          reading=self.settings.pytest_reading)

    def shown_events(self, turn):
        """A `definitions_shown` event for each file a message has shown by definitions since the
        last call: the terminal and the recording say what the model saw of a long file."""
        for shown in self.answering.shown[self.reported:]:
            yield {"type": "definitions_shown", "turn": turn, "path": shown.path, "lines": shown.lines,
                   "why": shown.why, "definitions": list(shown.definitions), "outlined": shown.outlined}
        self.reported = len(self.answering.shown)


def first_tests(settings, tools, start_tests):
    """check_first: the node ids of the tests that failed at the start, which a check of the
    harness runs before the whole selection; None (the whole selection at once) when they cannot
    be read for sure or the tools' test command cannot be narrowed to them."""
    if not settings.check_first:
        return None
    ids = failing_ids(start_tests)
    command = getattr(getattr(tools, "task", None), "pytest", None) or PytestCommand()
    return ids if ids and narrowed(command, ids) else None


class Budget:
    """The run's wall-clock budget (None: no budget), on the module's clock, and whether whoever
    started the run has called it off (`cancel`, a callable: a search that found its repair)."""

    def __init__(self, seconds, cancel=None):
        self.ends_at = None if seconds is None else now() + seconds
        self.cancel, self.cancelled = cancel, False

    def left(self):
        return None if self.ends_at is None else max(0.0, self.ends_at - now())

    def spent(self):
        """True once the time is up or the run was called off. `cancel` is asked at most once
        per check, and never again once it said yes, so a replay can answer it by counting."""
        if not self.cancelled and self.cancel is not None and self.cancel():
            self.cancelled = True
        return self.cancelled or (self.ends_at is not None and now() >= self.ends_at)

    def reason(self):
        """The stop reason of a spent budget."""
        return "cancelled" if self.cancelled else "deadline"
