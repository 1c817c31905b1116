"""A file shown by definitions: the definitions a model should answer, whole, and an outline.

Under `context="preload"`, a file answered by definitions (module_map.answer_form) is not shown
whole: a 100 KB module does not fit the message, nor the answer. context.py asks `Answering` for
its block instead, which holds, within the files budget:

    the file's imports, with their line numbers
    the wanted definitions whole, each with its file and lines (a method under its `class X:` line)
    an outline of the rest: one "line: signature" per definition

The wanted definitions are, best first: the focus the loop was given for this file (a ranking of
likely-faulty definitions, agent_events' `focus`); none when the focus names only other files
(the outline is enough); else those the failing tests' traceback frames point into; else the
file's first definitions, in order, while they fit.

What this file deliberately is not: the reader of the answers (text_edits_defs.py), or a ranker:
the focus comes from elsewhere, and the frames are only read (workspace/pytest_output.py).
"""
from collections import namedtuple

from loop.context_files import fence_for
from loop.context_focus import best_few
from loop.module_map import answer_form, innermost, module_map, signature, source_lines
from workspace.pytest_output import FRAME, read

OUTLINE_SHARE = 4   # up to a quarter of the budget is kept back for the outline
IMPORTS_SHARE = 6   # the imports take at most a sixth of it
MIN_OUTLINE = 300   # characters: less than this left, and the file is named, not shown
OUTLINE_LINE = 160  # characters of one outline line: a signature, not a wall of defaults
# What was shown of one file: its path, why these definitions ("focus", "failures", "first", or
# "outline": none, the focus being elsewhere),
# the qualified names shown whole, how many more the outline lists, and the file's lines.
Shown = namedtuple("Shown", "path why definitions outlined lines")


class Answering:
    """How each file of a run is answered and shown: its form (settings.answer_form, within
    settings.answer_budget), the run's focus, and the frames of the starting tests' failures."""

    def __init__(self, form, budget, focus=None, start_tests=None, *, scope="all", editable_only=True):
        self.form, self.budget, self.scope = form, budget, scope
        self.editable_only = editable_only  # settings.editable_hint: which files shown so ask for definitions
        self.focus = [item for item in focus or () if isinstance(item, dict)]
        if scope == "focus":  # the best few, not every definition with any evidence (context_focus.py)
            self.focus = best_few(self.focus)
        output = start_tests.get("output") if isinstance(start_tests, dict) else None
        self.frames = failure_frames(output)
        self.shown = []  # a Shown for each block given, in order: what the loop reports was shown

    @classmethod
    def of(cls, settings, focus=None, start_tests=None):
        """How a run with these LoopSettings answers and shows each file."""
        return cls(settings.answer_form, settings.answer_budget, focus, start_tests, scope=settings.preload_scope,
                   editable_only=settings.editable_hint)

    def asks_definitions(self, shown, paths):
        """Whether a file shown by definitions asks the model for definitions: one it may change
        (`paths`), or, under editable_hint=False (as before), any."""
        return shown.path in paths or not self.editable_only

    def focus_paths(self):
        """The files the focus points into, best first, each once."""
        return list(dict.fromkeys(item["path"] for item in self.focus if isinstance(item.get("path"), str)))

    def by_definitions(self, text):
        return answer_form(self.form, text, self.budget) == "definitions"

    def block(self, path, text, left):
        """The block showing `path` by definitions within `left` characters (and its Shown kept
        in `shown`), or None when it is answered whole or not even its outline fits."""
        found = module_map(text) if self.by_definitions(text) else None
        if found is None:
            return None
        wanted, why = self.wanted(path, found.definitions)
        rendered = render(path, text, found, wanted, why=why, left=left)
        if rendered is None or len(rendered[0]) > left:
            return None
        self.shown.append(rendered[1])
        return rendered[0]

    def wanted(self, path, definitions):
        """(definitions to show whole, best first; why those)."""
        named = {d.name: d for d in definitions}
        focus = [named.get(item.get("name")) or _at(definitions, item.get("start"))
                 for item in self.focus if item.get("path") == path]
        if any(focus):
            return _unique(focus), "focus"
        if self.focus:  # the ranking points at other files: this one's outline is enough, and a
            return [], "outline"  # small model reads every definition it is shown as a hint
        frames = [innermost(definitions, line) for frame_path, line in self.frames if frame_path == path]
        if any(frames):
            return _unique(frames), "failures"
        return [d for d in definitions if d.kind == "def"], "first"


def failure_frames(output):
    """[(path, line)] of the traceback frames in pytest's output, innermost first (the code a
    failure comes from is most often the last frame), each once."""
    frames = []
    for section in read(output)[0] if isinstance(output, str) else ():
        for kind, _frame, line, _length in section["items"]:
            match = FRAME.match(line) if kind == "frame" else None
            if match and not match.group(1).startswith("<"):
                frames.append((match.group(1), int(match.group(2))))
    return list(dict.fromkeys(reversed(frames)))


def render(path, text, found, wanted, *, why, left):
    """(the block, Shown): imports, the wanted definitions that fit (chosen best first, shown in
    file order), then the outline of the others while the rest of `left` lasts; None when not
    even the imports and a start of the outline fit."""
    lines = source_lines(text)
    head = f"{path} ({found.lines} lines) is shown by definitions: its imports, some definitions whole, an outline."
    imports = _imports(path, lines, found.imports, left // IMPORTS_SHARE)
    left -= len(head) + len(imports) + 2 * len(path) + 120
    if left < MIN_OUTLINE:
        return None
    room = left - min(left // OUTLINE_SHARE, 80 * len(found.definitions))
    chosen = []
    for definition in wanted:
        cost = sum(len(line) + 1 for line in lines[definition.start - 1:definition.end]) + 120
        if cost <= room and not any(_inside(definition, other) for other in chosen):
            chosen.append(definition)
            room -= cost
    chosen.sort(key=lambda d: d.start)
    parents = [None] + [d.parent for d in chosen]  # methods of one class in a row: its class line once
    parts = [imports] * bool(imports) + [_shown_definition(path, lines, found.definitions, d, d.parent != before)
                                         for d, before in zip(chosen, parents)]
    outline, listed = _outline(found.definitions, chosen, left - sum(len(part) + 2 for part in parts))
    fence = fence_for(text)
    block = f"{head}\n{path}\n{fence}python\n" + "\n\n".join(parts) + f"\n{fence}"
    if outline:
        block += f"\nOutline of the rest of {path} (line: definition):\n{fence}\n{outline}\n{fence}"
    return block, Shown(path, why, [d.name for d in chosen], listed, found.lines)


def _imports(path, lines, imports, room):
    """The top-level import statements, after a comment with their lines, within `room`."""
    if not imports:
        return ""
    kept, size = [], 0
    for first, last in imports:
        statement = "\n".join(lines[first - 1:last])
        if size + len(statement) > room:
            break
        kept.append(statement)
        size += len(statement) + 1
    note = f"# {path}, lines {imports[0][0]}-{imports[len(kept) - 1][1] if kept else imports[0][0]}: imports"
    return "\n".join([note, *kept])


def _shown_definition(path, lines, definitions, definition, with_classes=True):
    """One definition whole, under the header lines of the classes around it (unless the one
    before was in the same class), after a comment naming its file and lines."""
    classes, parent = [], definition.parent if with_classes else None
    by_name = {d.name: d for d in definitions if d.kind == "class"}
    while parent in by_name:
        classes.insert(0, by_name[parent])
        parent = by_name[parent].parent
    note = f"# {path}, lines {definition.start}-{definition.end}"
    if classes:
        note += " (in " + ", ".join(f"class {c.name.rsplit('.', 1)[-1]} at line {c.line}" for c in classes) + ")"
    header = [line for c in classes for line in c.header]
    return "\n".join([note, *header, *lines[definition.start - 1:definition.end]])


def _outline(definitions, chosen, room):
    """("line: signature" for each definition not shown whole, while `room` lasts; how many)."""
    out, listed = [], 0
    others = [d for d in definitions if not any(_inside(d, c) for c in chosen)]
    for number, d in enumerate(others):
        line = f"{d.line}: {'    ' * d.depth}{signature(d)}"[:OUTLINE_LINE]
        if len(line) + 60 > room:
            out.append(f"... {len(others) - number} more definitions, not listed")
            break
        out.append(line)
        room, listed = room - len(line) - 1, listed + 1
    return "\n".join(out), listed


def _inside(definition, other):
    return other.start <= definition.start and definition.end <= other.end


def _at(definitions, line):
    return innermost(definitions, line) if isinstance(line, int) and not isinstance(line, bool) else None


def _unique(found):
    return list(dict.fromkeys(d for d in found if d is not None))
