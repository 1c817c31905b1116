"""An attempt on a terminal: what attempt/run.py says of it as it goes, printed as one line each.

`AttemptView(printer, show_model=False)`, as a context manager around `run_attempt`, is its
`on_event`; fix.py holds one around its whole command, whose first steps say their own lines
through `line` and their starting tests and ranking as the attempt's events. The attempt's own
events (attempt/run.py) become lines: its starting tests, its localization, a search's start
(its seeds and servers; a note when every candidate is sampled at temperature 0) and its choice;
meanwhile a search's candidates stream into progress.py's status line (`--show-model` streams
one's text), each with a line as it ends. A single run's loop events go to the printer as they
come, text and all.

What this file deliberately is not: the attempt (attempt/run.py decides; this only shows), or the
status line itself (progress.py).
"""
from command_line.printer import clean, result_line
from command_line.progress import Progress
from workspace.verdict import changed_lines


class AttemptView:
    """The `on_event` of one attempt on a terminal (see the module docstring)."""

    def __init__(self, printer, show_model=False):
        self.printer, self.show_model, self.progress = printer, show_model, None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._status_off()  # a stop or a failure: the terminal is given back as it was

    def line(self, text):
        """A line of the command's own (fix.py's first steps), between the attempt's."""
        self.printer.line(text)

    def __call__(self, event):
        kind, say = event["type"], self.printer.line
        if kind == "start_tests":
            say(f"starting tests: {result_line(event['result'])}")
        elif kind == "localization":
            say(localization_line(event["localization"]))
        elif kind == "search":
            self._search_started(event)
        elif kind == "candidate_ended":
            self.progress.ended(event["candidate"])
            say(candidate_line(event["candidate"]))
        elif kind == "chosen":
            self._status_off()
            say(f"search: {event['why']}")
        elif "candidate" in event:  # a search's candidate, from its own thread
            self.progress.event(event["candidate"], event)
        else:
            self.printer(event)

    def _search_started(self, event):
        n, (first, last) = event["candidates"], event["seeds"]
        self.printer.line(f"searching: {n} candidates (seeds {first} to {last}), {event['parallel']} at once on "
                          f"each of {event['servers']} server(s)")
        if event["greedy"]:
            self.printer.line(f"note: all {n} candidates are sampled at temperature 0, so a server that decodes "
                              "greedily answers them alike whatever their seeds; the searches were measured at "
                              "--temperature 0.7")
        self.progress = Progress(self.printer, n, max_turns=event["max_turns"], show_model=self.show_model)
        self.progress.__enter__()

    def _status_off(self):
        if self.progress is not None:
            self.progress.__exit__(None, None, None)
            self.progress = None


def localization_line(localization):
    """One line for what localization found (localizing/ranking.py): the top definitions, and
    what the coverage run did; the names come from the user's code, so they are made inert."""
    ranked = localization.get("ranked") or []
    top = ", ".join(f"{item['name']} ({item['path']}:{item['start']}, {item['score']:g})" for item in ranked[:3])
    more = f" and {len(ranked) - 3} more" if len(ranked) > 3 else ""
    line = clean(f"localization: {top or 'nothing ranked'}{more}; coverage {localization.get('coverage')}")
    return line if len(line) <= 400 else line[:400] + "..."


def candidate_line(candidate):
    """One line for a search's candidate as it ends: its seed and server, how it stopped, its
    own tests, and the lines it changed."""
    tests = candidate.get("tests")
    outcome = result_line(tests) if isinstance(tests, dict) else "no tests (lost to its server)"
    return (f"candidate {candidate.get('index')} (seed {candidate.get('seed')}, {clean(str(candidate.get('server')))}): "
            f"stopped {clean(str(candidate.get('stop', {}).get('reason')))}; its tests: {outcome}; "
            f"{changed_lines(candidate.get('diff'))} lines changed")
