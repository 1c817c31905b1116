"""What fix.py left out of what the model may read and edit, and why, said in three places: a
note on the terminal (`shown`: the first few names and a count), the recording (`kept`: its
task_spec keeps the first KEPT), and the one line of "nothing to edit" (`why_none`: what was
found and why each was not chosen), so a user never meets a silent choice.

What this file deliberately is not: the choice (task.py's choose_files decides) or the reasons
(workspace/file_limits.py's text_size says why a file is not text the tools can edit).
"""
SHOWN = 5   # names in a line on the terminal
KEPT = 200  # names in a recording: enough for any real project's odd files, bounded for a huge tree


def shown(paths):
    """The first SHOWN of `paths`, and how many more."""
    return ", ".join(paths[:SHOWN]) + (f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else "")


def kept(left_out):
    """What a recording keeps of `left_out` ("path (why)" each): the first KEPT, and a count."""
    left_out = tuple(left_out)
    return left_out if len(left_out) <= KEPT else (*left_out[:KEPT], f"and {len(left_out) - KEPT} more")


def why_none(candidates, sizes, left, what, python):
    """Why none of `candidates` (the paths that could have been editable; `what`: (a noun, what
    follows it), as ("file", "--editable matched")) was
    chosen: each one's reason (`sizes`: text_size's answer; `left`: past the read budget), or, when
    there was none, what Python files there were. One clause, bounded."""
    noun, rest = what
    if not candidates:
        return f"found no {noun} {rest} ({len(python)} Python files in all{': ' if python else ''}{shown(python)})"
    reasons = [f"{path} ({_reason(path, sizes.get(path), left)})" for path in candidates]
    return f"found {len(candidates)} {noun}{'s' * (len(candidates) > 1)} {rest}, none chosen: {shown(reasons)}"


def _reason(path, size, left):
    if isinstance(size, str):
        return size
    return "empty" if not size else "past the read budget" if path in left else "not chosen"
