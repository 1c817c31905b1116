"""Terminal output: loop events as they stream, one line per tool call, one-line flag errors.

Shared by record_run.py (live progress) and replay.py (transcripts), so a recorded run and
its replay read the same. What this file deliberately is not: a logger or a UI framework.
"""
import argparse
import json
import sys

PREVIEW = 100  # characters of arguments or of an unknown result shown on a line


class Printer:
    """Prints events as they come; `show_thinking` adds the model's thinking (dimmed on a terminal)."""

    def __init__(self, out=None, show_thinking=False):
        self.out, self.show_thinking = out or sys.stdout, show_thinking
        self.dim = self.out.isatty()
        self.streaming = None  # "text" or "thinking" while a fragment left the cursor mid-line

    def __call__(self, event):
        kind = event["type"]
        if kind == "text_delta":
            self._stream("text", event["text"])
        elif kind == "thinking_delta" and self.show_thinking:
            self._stream("thinking", f"\x1b[2m{event['text']}\x1b[0m" if self.dim else event["text"])
        elif kind == "model_start":
            self._line(f"--- turn {event['turn']} ---")
        elif kind == "tool_start":
            self._line(f"> {event['name']}({_arguments(event['arguments'])})")
        elif kind == "tool_result":
            self._line(f"< {event['name']}: {summarise(event['result'])}")
        elif kind == "stopped":
            error = f" ({event['error']})" if "error" in event else ""
            self._line(f"stopped: {event['reason']} after turn {event['turn']}{error}")
        self.out.flush()

    def _stream(self, kind, text):
        if self.streaming not in (None, kind):
            self.out.write("\n")  # thinking and the answer each get their own lines
        self.out.write(text)
        self.streaming = kind

    def _line(self, text):
        if self.streaming:
            self.out.write("\n")
            self.streaming = None
        self.out.write(text + "\n")


def summarise(result):
    """One short line for a tool result."""
    if "error" in result:
        return f"error: {result['error']}"
    if "exit_code" in result:
        extra = (f", {result['errors']} errors" if result.get("errors") else "") + (
            ", timed out" if result.get("timed_out") else "")
        return (f"exit_code {result['exit_code']}, {result['passed']} passed, {result['failed']} failed"
                f"{extra} [sandbox: {result.get('sandbox', 'none')}]")
    if "text" in result:
        return f"{result['path']}, {len(result['text'].splitlines())} lines"
    if "replaced" in result:
        return f"replaced {result['replaced']} in {result['path']}"
    text = json.dumps(result, ensure_ascii=False)
    return text if len(text) <= PREVIEW else text[:PREVIEW] + "..."


def _arguments(arguments):
    if not isinstance(arguments, dict):
        return repr(arguments)
    shown = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    return shown if len(shown) <= PREVIEW else shown[:PREVIEW] + "..."


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad flag is one line that says what to do (exit 2), not a usage dump."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")
