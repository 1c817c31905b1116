"""Every file an attempt changed, before and after, side by side, the changed lines marked.

`render_changed_files(attempt, where=None)` is for improve.py's report, which shows "each changed
file before and after". A recording keeps only `changed_files` and `diff` (a unified diff of the
editable files), so "before" is the pristine task file (the attempt's `task_name`, loaded with
workspace.task_catalog) and "after" is that file with the diff applied. When the task is not
here, or its file no longer matches the diff (the task changed since), both sides are rebuilt
from the diff alone: its hunks, with a gap where lines were not recorded.

Only a task's editable files are ever read, and only inside its repository: a recording names
the files, and a recording is untrusted.

What this file deliberately is not: a patch tool for the workspace (the loop edits with
replace_text; verdict.py makes the diff). It only reads, and only to show.
"""
import re

from evaluation.html_parts import cut, e
from workspace.task_catalog import load_task

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
FILE_CHARS = 20_000  # of each side shown: a task's file is a page or two
DIFF_CHARS = 200_000  # a longer diff is not rebuilt into files at all
GAP = "⋯"            # lines the diff did not record


def render_changed_files(attempt, where=None):
    """Each changed file's before and after, as HTML."""
    where = where or f"attempts/{attempt.get('attempt_id')}.json"
    diff = str(attempt.get("diff") or "")
    if len(diff) > DIFF_CHARS:  # a rewrite of that size is read in the attempt file, not side by side
        return (f"<h3>Changed files, before and after</h3><p>The diff is {len(diff):,} characters long: "
                f"too long to show here; the whole diff is in {e(where)}</p>")
    hunks = split_diff(diff)
    listed = attempt.get("changed_files") if isinstance(attempt.get("changed_files"), list) else []
    out = ["<h3>Changed files, before and after</h3>"]
    for path in dict.fromkeys([str(name) for name in listed] + list(hunks)):
        if path not in hunks:
            out.append(f"<h4>{e(path)}</h4><p>changed, but not an editable file: the diff does not show it</p>")
            continue
        pristine = _pristine(attempt.get("task_name"), path)
        applied = _apply(pristine.splitlines(), hunks[path]) if pristine is not None else None
        note = "" if applied else "<p>(rebuilt from the diff: lines it did not record are shown as ⋯)</p>"
        before, after = applied or _from_diff(hunks[path])
        out.append(f'<h4>{e(path)}</h4>{note}<div class="files"><div><p>before</p>{_side(*before, where)}</div>'
                   f"<div><p>after</p>{_side(*after, where)}</div></div>")
    return "".join(out) if len(out) > 1 else ""


def split_diff(diff):
    """{path: [hunks]} of a unified diff; a hunk is (start, [(" " | "-" | "+", line)]), where
    `start` counts the lines of the old file before it. Line counts in `@@` end each hunk, so a
    removed line that reads "--- x" is still a removed line."""
    files, path, hunk, left = {}, None, None, (0, 0)
    for line in str(diff or "").splitlines():
        if hunk is not None and left != (0, 0) and line[:1] in (" ", "-", "+"):
            tag, text = line[0], line[1:]
            hunk[1].append((tag, text))
            left = (left[0] - (tag != "+"), left[1] - (tag != "-"))
        elif line.startswith("+++ "):
            path, hunk = line[4:].removeprefix("b/"), None
            files.setdefault(path, [])
        elif HUNK.match(line) and path is not None:
            old_start, old_count, _, new_count = HUNK.match(line).groups()
            old_count, new_count = int(old_count or 1), int(new_count or 1)
            # "@@ -0,0" and "@@ -4,0": an insertion after line 0 or 4; otherwise a hunk starts at that line.
            hunk = (int(old_start) - (old_count > 0), [])
            files[path].append(hunk)
            left = (old_count, new_count)
    return files


def _pristine(task_name, path):
    """The text of `path` in the task's pristine repository, decoded as the diff was, or None."""
    try:
        task = load_task(str(task_name))
        file = (task.repo / path).resolve()
        if path not in task.editable or not file.is_relative_to(task.repo) or not file.is_file():
            return None
        return file.read_bytes().decode("utf-8", errors="replace")
    except (ValueError, OSError, KeyError, TypeError):  # no such task here, or one we cannot read
        return None


def _apply(lines, hunks):
    """((before, marks), (after, marks)) with the diff applied to `lines`, or None when a line
    it expects is not there. Marks map a line's index to its class: "del" or "add"."""
    after, removed, added, at = [], {}, {}, 0
    for start, body in hunks:
        if start < at or start > len(lines):
            return None
        after += lines[at:start]
        at = start
        for tag, text in body:
            if tag != "+":
                if at >= len(lines) or lines[at] != text:
                    return None
                removed.update({at: "del"} if tag == "-" else {})
                at += 1
            if tag != "-":
                added.update({len(after): "add"} if tag == "+" else {})
                after.append(text)
    return (lines, removed), (after + lines[at:], added)


def _from_diff(hunks):
    """Both sides from the hunks alone, a gap line where the diff recorded nothing."""
    sides = (([], {}), ([], {}))
    for n, (start, body) in enumerate(hunks):
        for lines, marks in sides:
            if n or start > 0:
                marks[len(lines)] = "gap"
                lines.append(GAP)
        for tag, text in body:
            for (lines, marks), dropped, kind in ((sides[0], "+", "del"), (sides[1], "-", "add")):
                if tag != dropped:
                    marks.update({len(lines): kind} if tag != " " else {})
                    lines.append(text)
    for lines, marks in sides:
        marks[len(lines)] = "gap"
        lines.append(GAP)  # the diff cannot say whether the file went on
    return sides


def _side(lines, marks, where):
    """One side as a monospace block, marked lines coloured, cut at FILE_CHARS."""
    shown, note = cut("\n".join(lines), where, limit=FILE_CHARS)
    out = [f'<span class="{marks[i]}">{e(line, limit=None)}</span>' if i in marks else e(line, limit=None)
           for i, line in enumerate(shown.split("\n"))]
    return f"<pre>{chr(10).join(out)}</pre>{note}"
