"""What of a file the model may read and edit: the one rule every place that decides it uses.

- `MAX_FILE_BYTES`: the largest file the tools will read or edit, and the largest an edit may
  leave; fix.py chooses no bigger file to read or edit (its copy holds every file, whatever its
  size: fixing/repo.py bounds the whole tree instead).
- `READ_CHARS`: the most `read_file` returns in one call. A bigger file is shown by its first
  lines, and the result says so (`read_slice`); edits still work on the whole file.
- `text_size(path)`: a file's characters when the tools can read and edit it as text, else
  why not, in a few words (a link, binary, not UTF-8, over the limit, unreadable).

Why 2,000,000 bytes: real libraries keep much of their code in modules of 100-200 KB, and the
biggest hand-written ones stay under 1 MB. Reading, fingerprinting, replace_text and the diff
stay under 0.4 s even at 5 MB; parsing is the cost that grows, and an edit written as a
definition parses the file once per reply (measurements/big-modules/measure.py, 2 cores shared
with other work, load 5-10): 2 MB takes 1.5-3.6 s and 215 MB; 4 MB 5.4-7 s and 430 MB; 5 MB
10 s and 540 MB. Generated data of several MB is not code to repair.

What this file deliberately is not: the tools (repo_tools.py refuses and reads), or what a
message shows the model (loop/context.py keeps each message within its own budget).
"""
import os
import stat

MAX_FILE_BYTES = 2_000_000  # see above: at most a few seconds and ~215 MB to parse, per file
READ_CHARS = 100_000        # what read_file returned at most before big modules: its slice


def text_size(path):
    """The characters of the file at `path` the tools can read and edit as text, or why not."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return "a link"  # never edited through: an edit would change the file it points at
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size > MAX_FILE_BYTES:
            return f"{info.st_size:,} bytes, over the limit of {MAX_FILE_BYTES:,} bytes"
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if b"\0" in data:
            return "binary"
        return len(data.decode("utf-8"))
    except UnicodeDecodeError:
        return "not UTF-8"  # an edit written back as UTF-8 would change its other bytes
    except OSError as error:
        return f"unreadable: {error.strerror or type(error).__name__}"


def read_slice(path, text):
    """read_file's result for a file whose text is `text`: all of it up to READ_CHARS, else its
    first whole lines within READ_CHARS, marked `truncated`, with a note of what is not shown."""
    if len(text) <= READ_CHARS:
        return {"path": path, "text": text}
    cut = text.rfind("\n", 0, READ_CHARS) + 1 or READ_CHARS  # whole lines, unless one line is longer
    head = text[:cut]
    lines = text.count("\n") + (not text.endswith("\n"))
    note = (f"{path} is too long to show whole: this is its first {len(head):,} of {len(text):,} characters "
            f"(lines 1-{head.count(chr(10)):,} of {lines:,}). replace_text edits the whole file: copy the "
            "text to replace from what you were shown (the failures name the lines).")
    return {"path": path, "text": head, "truncated": True, "note": note}
