"""A search's progress on the terminal: one status line updated in place, or a plain line now and then.

`Progress(printer, total, max_turns=...)`, as a context manager around a search, follows the
candidates from their events (`event(index, event)`, called from each candidate's thread) and
ends (`ended(record)`): which are running, their turn and what they do, the tokens streamed so
far and how fast, how long each has run, and an estimate where one can be made. On a terminal
the status is one line, rewritten in place every half second (a carriage return, the text, the
rest of the line cleared); every other line (a candidate that ended, the text --show-model
streams) goes through the printer to `StatusStream`, which erases the status first and draws it
again below. Piped or in CI, the status is a plain line every PLAIN_EVERY seconds: a log shows
the run is alive without filling up. A token is one streamed piece (the servers send one a token).

What this file deliberately is not: a progress-bar library. rich or tqdm would draw bars and
redraw screen regions, but a status this short needs only a carriage return, and neither knows
which text came from a model: everything here goes through command_line/printer.py (`clean`).
"""
import shutil
import threading
import time

from command_line.printer import Printer, clean

TTY_EVERY, PLAIN_EVERY = 0.5, 15.0  # seconds between redraws on a terminal, between plain lines elsewhere
ERASE = "\r\x1b[K"  # to the line's start, then clear it


class Progress:
    """The status of one search (see the module docstring); `show_model` streams one running
    candidate's text (the first that starts, then the next) as a single run shows its own."""

    def __init__(self, printer, total, *, max_turns=None, show_model=False, clock=time.monotonic, every=None):
        self.printer, self.real, self.total, self.max_turns, self.clock = printer, printer.out, total, max_turns, clock
        try:
            self.tty = bool(self.real and self.real.isatty())
        except (AttributeError, ValueError, OSError):
            self.tty = False
        self.every = every or (TTY_EVERY if self.tty else PLAIN_EVERY)
        self.lock, self.running, self.durations, self.ended_count = threading.RLock(), {}, [], 0
        self.started = self.last_plain = clock()
        self.drawn, self.at_line_start, self.followed = False, True, None
        self.follow = Printer(StatusStream(self), show_thinking=printer.show_thinking) if show_model else None
        self.stop = threading.Event()

    def __enter__(self):
        self.printer.out = StatusStream(self)  # every line now goes above the status
        self.ticker = threading.Thread(target=self._tick_until_stopped, daemon=True)
        self.ticker.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.ticker.join()
        with self.lock:
            self._erase()
        self.printer.out = self.real

    def event(self, index, event):
        """One event of candidate `index` (from its thread)."""
        with self.lock:
            state = self.running.setdefault(index, Candidate(self.clock()))
            state.seen(event, self.clock())
            if self.follow and self.followed is None and event["type"] == "model_start":
                self.followed = index
                self.printer.line(f"--- candidate {index} (--show-model) ---")
        if self.follow and self.followed == index:
            self.follow(event)
            if event["type"] == "stopped":
                self.followed = None

    def ended(self, record):
        """A candidate ended: its time counts for the estimates (attempt_view.py prints its line)."""
        with self.lock:
            state = self.running.pop(record.get("index"), None)
            self.ended_count += 1
            if state is not None and record.get("stop", {}).get("reason") != "cancelled":
                self.durations.append(self.clock() - state.started)

    def status(self):
        """The status line's text (nothing in it comes from the model unescaped)."""
        now = self.clock()
        with self.lock:
            parts = [f"search: {self.ended_count} of {self.total} ended, {duration(now - self.started)}"]
            for index, state in sorted(self.running.items()):
                parts.append(f"candidate {index} of {self.total}: {state.line(now, self._left(state, now))}")
        return "; ".join(parts)

    def _left(self, state, now):
        """An estimate of what is left of a candidate: from the candidates that ended, else (from
        its second turn on) its time a turn times the turns it may still take."""
        elapsed = now - state.started
        if self.durations:
            mean = sum(self.durations) / len(self.durations)
            return f"about {duration(mean - elapsed)} left" if mean > elapsed else None
        if self.max_turns and state.turn > 1:
            per_turn = (state.turn_started - state.started) / (state.turn - 1)
            return f"at most about {duration(per_turn * (self.max_turns - state.turn + 1) - (now - state.turn_started))} left"
        return None

    def _tick_until_stopped(self):
        while not self.stop.wait(TTY_EVERY):
            self.tick()

    def tick(self):
        """Draw the status again (a terminal), or write it as a plain line when it is due."""
        with self.lock:
            if self.tty and self.at_line_start:
                self._draw()
            elif not self.tty and self.at_line_start and self.clock() - self.last_plain >= self.every:
                self.last_plain = self.clock()
                self._put(self.status() + "\n")

    def _draw(self):
        width = shutil.get_terminal_size((80, 24)).columns - 1  # a wrapped line could not be redrawn in place
        self._put(ERASE + clean(self.status())[:width])
        self.drawn = True

    def _erase(self):
        if self.drawn:
            self._put(ERASE)
            self.drawn = False

    def _put(self, text):
        try:
            self.real.write(text)
            self.real.flush()
        except (OSError, ValueError, AttributeError):  # the terminal is gone: the run goes on
            pass


class StatusStream:
    """The printer's output while a status is shown: each write erases the status, and a write
    that ends its line draws it again (on a terminal), so lines never mix with it."""

    def __init__(self, progress):
        self.progress = progress
        self.encoding = getattr(progress.real, "encoding", None)

    def write(self, text):
        with self.progress.lock:
            self.progress._erase()
            self.progress.real.write(text)
            self.progress.at_line_start = text.endswith("\n") if text else self.progress.at_line_start
            if self.progress.tty and self.progress.at_line_start:
                self.progress._draw()

    def flush(self):
        self.progress.real.flush()

    def isatty(self):
        return self.progress.tty


class Candidate:
    """What the status says of one running candidate, from its events."""

    def __init__(self, now):
        self.started = self.turn_started = now
        self.turn, self.tokens, self.turn_tokens, self.first, self.rate = 0, 0, 0, None, None
        self.doing = "starting"

    def seen(self, event, now):
        kind = event["type"]
        if kind == "model_start":
            self.turn, self.turn_started, self.turn_tokens, self.first = event["turn"], now, 0, None
            self.doing = "waiting for the model's first token"
        elif kind in ("text_delta", "thinking_delta"):
            self.tokens, self.turn_tokens = self.tokens + 1, self.turn_tokens + 1
            self.first = self.first or now
            if now > self.first:  # the rate of this turn's answer, from its first token on
                self.rate = (self.turn_tokens - 1) / (now - self.first)
            self.doing = "writing"
        elif kind == "tool_start":
            self.doing = f"running {clean(str(event.get('name')))[:30]}"
        elif kind == "stopped":
            self.doing = f"stopped ({clean(str(event.get('reason')))[:30]}), running its tests"

    def line(self, now, left):
        rate = f" at {self.rate:.1f}/s" if self.rate else ""
        ending = f", {left}" if left else ""
        return (f"turn {self.turn}, {self.doing}, {self.tokens} token{'' if self.tokens == 1 else 's'}{rate}, "
                f"{duration(now - self.started)}{ending}")


def duration(seconds):
    """`seconds` as people read it: 42s, 3m05s, 1h02m."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
