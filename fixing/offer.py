"""fix.py's offer on a terminal: the verdict, the patch and its size, one question, and the
patch applied only when every gate opens (`offer`, `decide`).

The patch is the model's text: every line goes through `clean`, so it cannot move the
cursor or rewrite the question under it. Colour only on a terminal (and never with NO_COLOR
set); a pipe or a file gets the plain patch. `ask` reads one answer: only "y" or "yes" is a
yes; an empty line, end of input or Ctrl-C is a no.

What this file deliberately is not: a guardrail (fixing/patch.py decides what may be
offered at all, and writes the approved patch: nothing here writes the user's files).
"""
import os
import sys

from fixing.patch import apply, make_patch, moved_on, refusal, stat_lines
from command_line.printer import clean, result_line, warn
from runs.recording_file import keep
from workspace.files import write_kept

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


def offer(args, prepared, tools, recording, show):
    """Keep the run and write the patch, then show the verdict, the patch and its size; apply it
    only when every gate opens. Return the outcome (decide's), which the recording keeps beside
    the patch."""
    repo, task = prepared.repo, prepared.task
    # The run is kept first, whatever happens at the offer; a later save of it goes where this one went.
    args.output = keep(args.output, recording, warn)
    patch = make_patch(task, tools.root)
    args.patch = write_kept(args.patch, patch.text, warn, "the patch")  # always written, applied or not
    refused = refusal(patch, recording, task, args.max_changed_lines)
    show.line(f"verdict: {recording['verdict']} (independent pytest: {result_line(recording['final_tests'])})")
    for line in [*patch_lines(patch.text, wants_colour(sys.stdout)), *stat_lines(patch)] if patch.changes else []:
        show.line(line)
    outcome = decide(args, repo, task, tools, patch, refused=refused, show=show)
    recording.update(patch={"file": args.patch, "changed_lines": patch.changed_lines, "refused": refused},
                     outcome=outcome)
    args.output = keep(args.output, recording, warn)
    show.line(f"wrote {clean(args.output)} and {clean(args.patch)}")
    return outcome


def decide(args, repo, task, tools, patch, *, refused, show):
    """"applied", or why not: "refused", "no terminal", "declined", "changed since", "failed"."""
    if refused:
        show.line(f"not applied: {refused}")
        return "refused"
    if not args.yes and not sys.stdin.isatty():
        show.line("not applied: no terminal to ask on (pass --yes to apply without asking)")
        return "no terminal"
    if not args.yes and not ask(f"Apply this patch to {clean(str(repo))}? [y/N] ", sys.stdin, sys.stdout):
        show.line("not applied")
        return "declined"
    moved = moved_on(repo, patch.paths, task.repo)
    if moved:
        show.line(f"not applied: changed since the run started: {clean(', '.join(moved))} "
                  f"(the patch is in {clean(args.patch)})")
        return "changed since"
    written, problem = apply(repo, tools.root, patch.paths)
    if problem:
        done = f" (already applied: {clean(', '.join(written))})" if written else ""
        show.line(f"not applied: {clean(problem)}{done}")
        return "failed"
    show.line(f"applied to {clean(str(repo))}: {clean(', '.join(written))}")
    return "applied"
