"""fix.py's offer on a terminal: the verdict, the patch and its size, then one question.

The patch is the model's text: every line goes through `clean`, so it cannot move the
cursor or rewrite the question under it. Colour only on a terminal (and never with NO_COLOR
set); a pipe or a file gets the plain patch. `ask` reads one answer: only "y" or "yes" is a
yes; an empty line, end of input or Ctrl-C is a no.

What this file deliberately is not: a guardrail (fixing/patch.py decides what may be
offered at all) or a writer of the user's files.
"""
import os

from runs.printer import clean

COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m", "\\": "\x1b[2m"}
BOLD, RESET = "\x1b[1m", "\x1b[0m"


def wants_colour(out):
    return out.isatty() and "NO_COLOR" not in os.environ


def patch_lines(text, colour):
    """The patch as it is shown: inert, and coloured when `colour`. Lines end at "\\n" alone: a
    "\\r" before it is shown (\\x0d), so a line whose only change is its ending shows as one."""
    shown = []
    for line in text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"):
        safe = clean(line, keep_newlines=True).replace("\t", "    ")
        if colour and line.startswith(("+++ ", "--- ")):
            safe = f"{BOLD}{safe}{RESET}"
        elif colour and line[:1] in COLOURS:
            safe = f"{COLOURS[line[:1]]}{safe}{RESET}"
        shown.append(safe)
    return shown


def ask(question, stdin, out):
    """Ask on the terminal; True only for y or yes."""
    out.write(question)
    out.flush()
    try:
        answer = stdin.readline()
    except (KeyboardInterrupt, OSError):
        answer = ""
    if not answer.endswith("\n"):
        out.write("\n")  # end of input: the next line starts on its own line
    return answer.strip().lower() in ("y", "yes")
