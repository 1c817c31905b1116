"""Terminal output: loop events as they stream, one line per tool call, tables, one-line errors.

Shared by record_run.py (live progress), replay.py (transcripts) and evaluate.py, so a
recorded run and its replay read the same. Everything a model (or a recording, or a server)
controls passes through `clean` first: escape sequences could otherwise set the title, clear
the screen or overwrite the `> tool(...)` lines a user relies on.

What this file deliberately is not: a logger or a UI framework.
"""
import argparse
import json
import os
import re
import sys

from command_line import ctrl_c

PREVIEW = 100  # characters of arguments or of an unknown result shown on a line
# C0 and C1 controls, DEL, bidi overrides, line separators and lone surrogates.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def clean(text, keep_newlines=False):
    """`text` with every control character shown as an escape (\\x1b), so it cannot act on
    the terminal. Streamed text keeps its newlines and tabs (`keep_newlines`)."""
    def escape(match):
        char = match.group()
        if keep_newlines and char in "\n\t":
            return char
        return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    return UNSAFE.sub(escape, text)


class Printer:
    """Prints events as they come; `show_thinking` adds the model's thinking (dimmed on a terminal)."""

    def __init__(self, out=None, show_thinking=False):
        self.out, self.show_thinking = out or sys.stdout, show_thinking
        self.dim = self.out.isatty()
        self.streaming = None  # "text" or "thinking" while a fragment left the cursor mid-line

    def __call__(self, event):
        kind = event["type"]
        if kind == "text_delta":
            self._stream("text", clean(event["text"], keep_newlines=True))
        elif kind == "thinking_delta" and self.show_thinking:
            shown = clean(event["text"], keep_newlines=True)
            self._stream("thinking", f"\x1b[2m{shown}\x1b[0m" if self.dim else shown)
        elif kind == "model_start":
            self._line(f"--- turn {event['turn']} ---")
        elif kind in ("tool_start", "tool_result"):
            self._line(_tool_line(event))
        elif kind == "nudge":
            # Continuation lines are indented, so none can pass for a `> tool(...)` line.
            lines = [clean(line) for line in str(event["text"]).split("\n")[:15]]
            self._line(f"! nudge ({clean(event['kind'])}): " + "\n    ".join(_short(line, 300) for line in lines))
        elif kind == "definitions_shown":
            self._line(shown_line(event))
        elif kind == "stopped":
            error = f" ({clean(event['error'])})" if "error" in event else ""
            self._line(f"stopped: {event['reason']} after turn {event['turn']}{error}")
        try:
            self.out and self.out.flush()
        except OSError:
            self.out = None

    def _stream(self, kind, text):
        if self.streaming not in (None, kind):
            self._write("\n")  # thinking and the answer each get their own lines
        self._write(text)
        self.streaming = kind

    def line(self, text):
        """One line of the program's own (already safe) text, through the same guarded output."""
        self._line(text)
        try:
            self.out and self.out.flush()
        except OSError:
            self.out = None

    def _line(self, text):
        if self.streaming:
            self._write("\n")
            self.streaming = None
        self._write(text + "\n")

    def _write(self, text):
        if self.out is None:
            return
        try:
            try:
                self.out.write(text)
            except UnicodeEncodeError:  # a terminal that cannot show some character: escape it
                encoding = getattr(self.out, "encoding", None) or "ascii"
                self.out.write(text.encode(encoding, "backslashreplace").decode(encoding))
        except OSError:  # the reader went away (`| head`): stop printing, the run goes on
            self.out = None


def shown_line(event):
    """One line for what a message showed of a file answered by definitions."""
    names = [clean(str(name)) for name in event.get("definitions") or []]
    whole = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "") if names else "none"
    return (f"= shown by definitions: {clean(str(event.get('path')))} ({event.get('lines')} lines): whole: {whole} "
            f"[{clean(str(event.get('why')))}]; outline: {event.get('outlined')} more")


def _tool_line(event):
    name = clean(str(event["name"]))
    how = " [written as text]" if event.get("written_as_text") else " [by the harness]" if event.get("by_harness") else ""
    if event.get("only"):  # check_first: the tests that failed at the start, before the whole selection
        count = len(event["only"])
        how = f" [by the harness: the {count} test{'s' * (count != 1)} that failed at the start]"
    if event["type"] == "tool_start":
        return f"> {name}({_arguments(event['arguments'])}){how}"
    return f"< {name}: {result_line(event['result'])}"


def result_line(result):
    """One short line for a tool result (or a test run), safe to print."""
    if "error" in result:
        return f"error: {_short(clean(str(result['error'])), 300)}"
    if "exit_code" in result:
        extra = (f", {result.get('errors')} errors" if result.get("errors") else "") + (
            ", timed out" if result.get("timed_out") else "")
        return (f"exit_code {result['exit_code']}, {result.get('passed')} passed, {result.get('failed')} failed"
                f"{extra} [sandbox: {clean(str(result.get('sandbox', 'none')))}]")
    if "text" in result:
        return f"{clean(str(result.get('path')))}, {len(str(result['text']).splitlines())} lines"
    if "replaced" in result:
        return f"replaced {result['replaced']} in {clean(str(result.get('path')))}"
    return _short(clean(json.dumps(result, ensure_ascii=False, default=repr)), PREVIEW)


def columns(header, rows, widest=40):
    """A table as plain text lines (header, a rule, the rows): each column as wide as its widest
    cell, cells cut at `widest` characters, so it reads on any terminal and in any log."""
    cells = [[_short(clean(str(cell)), widest) for cell in row] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in cells]
    return [lines[0], "  ".join("-" * width for width in widths), *lines[1:]]


def _arguments(arguments):
    try:
        shown = (", ".join(f"{key}={value!r}" for key, value in arguments.items())
                 if isinstance(arguments, dict) else repr(arguments))
    except RecursionError:
        shown = "<arguments nested too deep to show>"
    return _short(clean(shown), PREVIEW)


def _short(text, limit):
    return text if len(text) <= limit else text[:limit] + "..."


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad flag is one line that says what to do (exit 2), not a usage dump."""

    def error(self, message):
        self.exit(2, f"error: {clean(message)} (see {self.prog} --help)\n")


def fail(message):
    """One line on stderr that says what went wrong and what to do; no traceback. Returns 1."""
    print(f"error: {clean(str(message))}", file=sys.stderr)
    return 1


def warn(line):
    """One line on stderr that the run went on past (a file kept elsewhere, say)."""
    print(clean(str(line)), file=sys.stderr)


def run_cli(main):
    """Run a CLI's `main` and exit with its code; a closed pipe (`| head`) ends it quietly, and
    a Ctrl-C is never lost on its way (command_line/ctrl_c.py)."""
    ctrl_c.remember()
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the final flush is silent
        code = 141  # what a shell reports for a process ended by SIGPIPE
    sys.exit(code)
