"""A file's line endings, kept through an edit: a model writes "\\n" whatever the file uses.

A model reads a file with CRLF line endings, then writes its `old` and `new` (or a code block,
or a diff) with "\\n": matched and written as sent, the edit is not found, or it leaves a file
with mixed endings. So an edit is read and written in the file's own convention:

- `line_ending(text)`: "\\r\\n" when every line break of `text` is CRLF, "\\n" when every one is
  LF; None when it has none, or mixes them (then an edit's text is used byte for byte);
- `with_line_ending(text, ending)`: `text` with every line break written as `ending`.

What this file deliberately is not: a converter of files. Nothing here reads or writes one;
repo_tools.replace_text uses it on an edit, loop/written.py on what the edit parsers read.
"""


def line_ending(text):
    """The one line ending `text` uses throughout, or None (no line break, or both kinds)."""
    breaks, crlf = text.count("\n"), text.count("\r\n")
    if breaks == 0 or crlf not in (0, breaks):
        return None
    return "\r\n" if crlf else "\n"


def with_line_ending(text, ending):
    """`text` with each line break ("\\r\\n" or "\\n") written as `ending`; a lone "\\r" stays."""
    text = text.replace("\r\n", "\n")
    return text if ending == "\n" else text.replace("\n", ending)
