"""Edits written as a unified diff: read the hunks, then find where each one applies.

Part of text_edits.py, which hands this file the text of a diff block or the prose around the
blocks. A hunk's unchanged (" ") and removed ("-") lines are the text it replaces, its unchanged
and added ("+") lines the replacement:

    --- a/pricing.py                 the file: a/ b/ prefixes and dates are dropped
    +++ b/pricing.py
    @@ -17,3 +17,3 @@                  line numbers and counts are not trusted (models miscount)
         def percent_off(amount, percent):
    -    discount = amount * to_rate(percent) / 100
    +    discount = amount * to_rate(percent)

What this file deliberately is not: `patch`. It matches whole lines, ignoring only trailing
spaces (a blank line whose leading space the model dropped still matches), and applies a hunk
only where it matches exactly once; there is no fuzz and no offset search by line number.
"""
import re

from loop.text_edits_code import edit, problem

HEADER = re.compile(r"^--- ([^\n]*)\n\+\+\+ ([^\n]*)\n", re.M)


def file_diffs(text, fenced, headerless=False):
    """[(name from the headers or None, [hunk, ...])] where a hunk is [(mark, line), ...].
    fenced: the text is a block's, where a blank line inside a hunk is a blank unchanged line
    (its leading space lost); in prose a blank line ends the diff, so a list after it is no hunk.
    headerless: read hunks with no ---/+++ before them too (a diff block)."""
    diffs, pos = [], 0
    if headerless and not HEADER.search(text):
        return [(None, _hunks(text, 0, fenced)[0])] if "\n+" in "\n" + text or "\n-" in "\n" + text else []
    while header := HEADER.search(text, pos):
        hunks, pos = _hunks(text, header.end(), fenced)
        old, new = (_file_name(name) for name in header.groups())
        diffs.append((old if new == "/dev/null" else new, hunks))
    return diffs


def _file_name(header):
    name = (header.split() or [""])[0]  # "a/x.py\t2024-05-01 10:00", "x.py (fixed)" -> the path
    return name[2:] if name.startswith(("a/", "b/")) else name


def _hunks(text, pos, fenced):
    """The hunks from `pos` on, and where they end: at the first line no hunk can hold."""
    hunks, current = [], None
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        if line.startswith("--- ") and text.startswith("+++ ", end + 1):
            break  # the next file's headers
        if line.startswith("@@") or (current is None and line[:1] in (" ", "-", "+")):
            current = []  # a model may leave out the @@ line: the hunk starts at its first line
            hunks.append(current)
        if line[:1] in (" ", "-", "+") or (line == "" and fenced and current is not None):
            current.append((line[:1] or " ", line[1:]))
        elif not line.startswith(("@@", "\\")):  # "\ No newline at end of file" is not content
            break
        pos = end + 1
    for hunk in hunks:
        while hunk and hunk[-1] == (" ", ""):
            hunk.pop()  # blank lines after a hunk are the gap before the prose, not context
    return [hunk for hunk in hunks if hunk], min(pos, len(text))


def hunk_edit(path, number, hunk, text):
    """The edit for hunk `number` of `path`, or an error that says what did not match."""
    old = [line for mark, line in hunk if mark != "+"]
    new = [line for mark, line in hunk if mark != "-"]
    if all(mark == " " for mark, _ in hunk):
        return None  # only unchanged lines: nothing to do
    if not old:
        return problem(path, f"hunk {number} for {path} only adds lines: include the unchanged line "
                             "before them so it can be placed", "diff")
    lines = text.split("\n")
    keys = [line.rstrip() for line in lines]
    at, count = _find(keys, [line.rstrip() for line in old])
    if count == 1:
        return edit(path, "\n".join(lines[at:at + len(old)]), "\n".join(_merge(hunk, lines, at)), "diff")
    if count > 1:
        return problem(path, f"hunk {number} for {path} matches {count} or more places: add unchanged "
                             "lines around the change so it matches one", "diff")
    if _find(keys, [line.rstrip() for line in new])[1] == 1:  # already in the file (an earlier block)
        return problem(path, f"hunk {number} for {path} is already in the file (a no-op)", "diff", noop=True)
    missing = old[_matching_prefix(keys, [line.rstrip() for line in old])]
    return problem(path, f"hunk {number} for {path} does not match the file: no line {missing.strip()!r} "
                         "where the hunk puts it; read the file and copy its lines exactly", "diff")


def _merge(hunk, lines, at):
    """The replacement: unchanged lines as the file has them (its exact spacing), added lines."""
    merged = []
    for mark, line in hunk:
        if mark == "+":
            merged.append(line)
        else:
            merged += [lines[at]] if mark == " " else []
            at += 1
    return merged


def _find(keys, wanted):
    """(the line where `wanted` starts in `keys`, how many times it occurs: 0, 1 or 2 for more).
    One string search over joined lines: linear, unlike comparing at every line."""
    haystack, needle = "\n" + "\n".join(keys) + "\n", "\n" + "\n".join(wanted) + "\n"
    first = haystack.find(needle)
    if first < 0:
        return None, 0
    return haystack.count("\n", 0, first), 1 if haystack.find(needle, first + 1) < 0 else 2


def _matching_prefix(keys, wanted):
    """How many leading lines of `wanted` occur together in `keys` (binary search: a prefix
    that occurs means every shorter one does too)."""
    low, high = 0, len(wanted) - 1  # the whole of `wanted` does not occur: we only get here then
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if _find(keys, wanted[:middle])[1] else (low, middle - 1)
    return low
