"""A failing pytest run in a few lines: what a small model reads instead of pytest's output.

`failure_digest(output, max_frames=3)` takes what `run_tests` returned (the fixed `pytest -q` of
workspace/pytest_run.py, default tracebacks, perhaps cut in the middle), as
workspace/pytest_output.py reads it, and keeps, for each failing
or erroring test: its node id, the failing lines pytest marks with `>`, its `E` lines (assertion,
exception, collection error), and at most `max_frames` traceback locations (the test's own, and
the last ones, where the error was raised); then the tests named only in pytest's short summary,
and its count line. Dots, banners, source context, locals, printed output and pytest's own frames
go. Every part is capped and the digest says what it left out; each line is read only on its
first SCAN_CHARS characters, so the time is linear in the output's length.

What this file deliberately is not: a parser of pytest's output (pytest_output.py reads it; when
it recognises nothing, the digest falls back to pytest's last lines), or a judge: run_tests'
counts say whether tests pass.
"""
import re

from workspace.pytest_output import READING, SCAN_CHARS, header_form, name_in, read, test_label

LINE_CHARS = 240       # a kept line is cut here: a long assert fits, a big object's repr does not
E_LINES = 10           # E lines per test: the assertion and its "where" lines; a long diff is cut
DETAILED_TESTS = 5     # tests shown in detail; several failures usually share one cause
LISTED_TESTS = 10      # further failing tests, one summary line each
DIGEST_CHARS = 3_000   # the detailed tests: ~800 tokens, 10-30 s of prompt on a small CPU
FALLBACK_LINES = 5     # pytest's last lines, when nothing above is found (a crash, odd output)

PROGRESS = re.compile(r"[.FEsxX]+(\s+\[\s*\d+%\])?$")
# pytest's hints name flags the model cannot pass to the fixed command: noise to it.
HINT = re.compile(r"E\s+(.*use '?-vv?'? |\.\.\.Full output truncated)", re.IGNORECASE)


def failure_digest(output, max_frames=3, reading=READING):
    """The digest of one run's pytest output (any str; anything else counts as no output), read
    the `reading` way (workspace/pytest_output.py's READING)."""
    max_frames = max_frames if isinstance(max_frames, int) and max_frames >= 0 else 3
    sections, summary, counts = read(output, reading)
    # The tests pytest's short summary names, each line as shown: (test id, line).
    summary = [(test, _cut(line, length)) for kind, test, line, length in summary if kind in ("FAILED", "ERROR")]
    body = _render(sections, summary, max_frames) or ("" if counts else _fallback(output.splitlines() if isinstance(output, str) else []))
    return "\n".join(part for part in (body, _cut(counts, len(counts))) if part)


def _noise(e_line):
    """E lines that tell the model nothing: blank ones, pytest's hints to pass -v (the command is
    fixed), and "+ and Decimal('34.00') = Decimal('34.00')", whose two sides are the same text."""
    body = e_line[1:].strip()
    left, equals, right = body.partition(" = ")
    same_sides = body.startswith("+") and equals and left.split(None, 2)[-1] == right
    return not body or bool(HINT.match(e_line)) or same_sides


def _render(sections, summary, max_frames):
    """Up to DETAILED_TESTS sections in detail while DIGEST_CHARS lasts, then the other failing
    tests one line each (pytest's summary line, or the section's name when there is none)."""
    names = {header_form(nodeid): nodeid for nodeid, _line in summary}
    blocks, left = [], DIGEST_CHARS
    for section in sections[:DETAILED_TESTS]:
        block = _render_section(section, names, max_frames)
        if len(block) > left and blocks:  # no room: this test and the rest are named below
            break
        blocks.append(_cap(block, left))
        left -= len(blocks[-1])
    shown = {names.get(name_in(section["title"])) for section in sections[:len(blocks)]}
    rest = [line for nodeid, line in summary if nodeid not in shown]
    if not summary:  # cut off, or a run stopped before it: name the sections not shown
        rest = [test_label(section, names) for section in sections[len(blocks):] if section["title"]]
    more = f"\n({len(rest) - LISTED_TESTS} more failing tests left out)" if len(rest) > LISTED_TESTS else ""
    blocks.append("\n".join(rest[:LISTED_TESTS]) + more)
    return "\n\n".join(block for block in blocks if block)


def _cap(text, room):
    """`text` cut at the last line end within `room` characters, saying how much went."""
    if len(text) <= room:
        return text
    end = max(0, text.rfind("\n", 0, room + 1))
    return f"{text[:end]}\n[... {len(text) - end} more characters of this test left out ...]".lstrip("\n")


def _render_section(section, names, max_frames):
    """One test: its name, then its kept lines in pytest's order, then what was left out."""
    frames, keep = section["frames"], _frames_to_keep(section["frames"], max_frames)
    lines, e_lines, e_left = [test_label(section, names)], 0, 0
    for kind, frame, line, length in section["items"]:
        if kind == "frame" and frame < len(frames) and frame not in keep:
            continue  # a frame left out, with its source line
        if kind == "E" and _noise(line):
            continue
        if kind == "E":
            e_lines += 1
            if e_lines > E_LINES:
                e_left += 1
                continue
        lines.append(_cut(line, length))
    left = [f"{n} {what}{'s' * (n != 1)}" for n, what in ((len(frames) - len(keep), "traceback frame"),
                                                          (e_left, "E line")) if n]
    left += ["what the test printed"] if section.get("captured") else []
    if left:
        lines.append(f"({' and '.join(left)} left out)")
    return "\n".join(line for line in lines if line)


def _frames_to_keep(frames, max_frames):
    """The test's own frame and the last ones, where the error was raised; pytest's and the
    standard library's frames (shown as <venv>, <python>, <frozen ...>) only if nothing else."""
    ours = [i for i, path in enumerate(frames) if not (path.startswith("<") or "site-packages/" in path)]
    pool = ours or list(range(len(frames)))
    if len(pool) <= max_frames:
        return set(pool)
    if max_frames < 2:  # room for one frame: where the error was raised
        return set(pool[-1:] if max_frames else [])
    return set(pool[:1] + pool[-(max_frames - 1):])


def _fallback(lines):
    """Nothing recognised (a crash, a run stopped early): pytest's last meaningful lines."""
    tail = [(raw[:SCAN_CHARS].strip(), len(raw.strip())) for raw in lines[-50:]]
    tail = [_cut(line, length) for line, length in tail if line and not PROGRESS.match(line)]
    return "\n".join(tail[-FALLBACK_LINES:]) or "(pytest printed no failure details)"


def _cut(line, length):
    """`line` (the first characters of one `length` characters long) cut to LINE_CHARS."""
    return line if length <= LINE_CHARS else f"{line[:LINE_CHARS]}... ({length - LINE_CHARS} more characters)"
