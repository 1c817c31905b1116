"""The files of a message, each in a fenced block headed by its path, within a budget.

`file_blocks(paths, read, budget)` renders the files loop/context.py puts into the first message
and into each correction: a file in a block as the model is asked to answer (its path on the line
before), or, for a file answered by definitions, the block context_defs.Answering gives; then one
line naming the files that did not fit and one naming those that could not be read.
`read_text(read, path)` reads one through the tools' reader, a refusal named, never raised.

What this file deliberately is not: what a message says around the files (context.py), or a
file reader of its own (`read` is given, so the tools' allowlist still applies).
"""
import re

FILES_BUDGET = 12_000  # characters of file text per message (SPEC): ~3,000 tokens, 25-120 s on a CPU
REASON_CHARS = 200     # why a file could not be read: one line, not a traceback


def file_blocks(paths, read, budget, shown=None, answering=None):
    """Each file in a fenced block headed by its path (or, for a file answered by definitions,
    its `answering` block), in order, while the budget lasts; then one line naming the files
    that did not fit and one naming those that could not be read. The files shown whole go
    into `shown` ({path: text}) when it is given."""
    left = budget if isinstance(budget, int) and not isinstance(budget, bool) else FILES_BUDGET
    blocks, too_long, unreadable = [], [], []
    for path in paths:
        text, reason = read_text(read, path)
        if reason:
            unreadable.append(f"{path} ({reason})")
            continue
        if answering and answering.by_definitions(text):
            block = answering.block(path, text, left)
        else:
            block = _fenced(path, text)
            if shown is not None and len(block) <= left:
                shown[path] = text
        if block is None or len(block) > left:  # skip it, but keep going: a smaller file after it may still fit
            too_long.append(path)
            continue
        blocks.append(block)
        left -= len(block)
    if too_long:
        blocks.append(f"Not included (too long for this message), read it with read_file: {', '.join(too_long)}")
    if unreadable:
        blocks.append(f"Could not be read: {'; '.join(unreadable)}")
    return blocks


def read_text(read, path):
    """(text, None), or (None, why not): a refused or missing file is named, never a crash.
    `read` may return the text, or read_file's {"path", "text"} dict."""
    try:
        text = read(path)
    except (ValueError, OSError, TypeError) as error:
        return None, f"{type(error).__name__}: {error}"[:REASON_CHARS]
    text = text.get("text") if isinstance(text, dict) else text
    return (text, None) if isinstance(text, str) else (None, "no text returned")


def _fenced(path, text):
    """The path on the line before the block, as the model is asked to answer. The fence is
    longer than any backtick run in the text, so a file holding ``` cannot end it early."""
    fence = fence_for(text)
    language = "python" if path.endswith(".py") else ""
    return f"{path}\n{fence}{language}\n{text.rstrip()}\n{fence}"


def fence_for(text):
    """Longer than any backtick run in the text, so a file holding ``` cannot end the block."""
    return "`" * (max((len(run) for run in re.findall(r"`{3,}", text)), default=2) + 1)
