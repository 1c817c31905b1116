"""A Python module's definitions by qualified name and line range, and how a file is answered.

A library module is longer than the answer a small model can write (2,048 tokens), so it is
answered by definitions: the model is shown some definitions whole and an outline of the rest
(loop/context_defs.py), and writes back each function or method it changes (text_edits_defs.py).
Both read the module through this map:

- `module_map(text)`: a ModuleMap, or None when the text does not parse: every class, function
  and method that is not inside a function, in file order, as a Definition ("Journal.post",
  lines 120-148 with its decorators), and the line ranges of the top-level imports.
- `innermost(definitions, line)`: the most nested definition whose lines hold `line`.
- `answer_form(form, text, budget)`: "file" or "definitions", the one rule for a file's form.

What this file deliberately is not: a renderer or an editor. It reads, with `ast` (Python is
parsed, never run), and is linear in the module's length.
"""
import ast
import functools
import re
from collections import namedtuple

FORMS = ("auto", "file", "definitions")
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the line breaks ast counts (str.splitlines counts \f and more)
HEADER_LINES = 6  # a signature spread over more lines is shown by its first six in an outline

# name: qualified ("Journal.post", "Outer.Inner.m", "helper"); kind: "class" or "def";
# start: its first decorator's line (1-based), `line` its def or class line, end: its last line;
# header: the lines of its signature, up to the body; body: its body's first line; parent: the
# qualified name of its class (None at the top level); depth: how many classes enclose it.
Definition = namedtuple("Definition", "name kind start line end header body parent depth")
ModuleMap = namedtuple("ModuleMap", "definitions imports lines")  # imports: [(first, last)]; lines: count
# by_class: {class's qualified name: the names of its methods and inner classes}; methods:
# {a method's own name: [its Definitions, in every class]}; named: {qualified name: Definition}.
Members = namedtuple("Members", "by_class methods named")


def answer_form(form, text, budget):
    """How a file is answered: "file" (whole) or "definitions". "auto": a file within `budget`
    characters whole (what measured best on small tasks), a longer one by definitions. A file
    that does not parse has no definitions to find, so it is answered whole in every form."""
    if form == "file" or not isinstance(text, str) or (form == "auto" and len(text) <= budget):
        return "file"
    return "definitions" if module_map(text) is not None else "file"


@functools.lru_cache(maxsize=16)  # the context, the hint and the reader ask about the same texts
def module_map(text):
    """The ModuleMap of `text`, or None when it is not Python that parses."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = source_lines(text)
    definitions, imports = [], []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append((node.lineno, node.end_lineno))
    _collect(tree.body, None, 0, lines, definitions)
    return ModuleMap(tuple(definitions), tuple(imports), len(lines) - (lines[-1] == ""))


def _collect(body, parent, depth, lines, found):
    """Every def and class of `body` into `found`, file order, descending into classes only:
    a function's inner functions are part of it, never definitions of their own."""
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        name = f"{parent}.{node.name}" if parent else node.name
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        body_line = node.body[0].lineno if node.body else node.lineno
        last = max(node.lineno, min(body_line - 1, node.lineno + HEADER_LINES - 1))
        header = tuple(lines[node.lineno - 1:last])
        kind = "class" if isinstance(node, ast.ClassDef) else "def"
        found.append(Definition(name, kind, start, node.lineno, node.end_lineno, header, body_line, parent, depth))
        if kind == "class":
            _collect(node.body, name, depth + 1, lines, found)


@functools.lru_cache(maxsize=16)
def source_lines(text):
    """The lines of `text` as ast numbers them (line N is [N - 1]), without their breaks."""
    return tuple(LINE_BREAK.split(text))


@functools.lru_cache(maxsize=16)
def members(text):
    """The Members of a module (all empty when it does not parse): built once per text, so each
    block of a reply looks names up instead of walking the module again."""
    found = module_map(text)
    by_class, methods, named = {}, {}, {}
    for definition in found.definitions if found else ():
        named[definition.name] = definition
        if definition.parent is not None:
            by_class.setdefault(definition.parent, set()).add(definition.name.rsplit(".", 1)[-1])
            if definition.kind == "def":
                methods.setdefault(definition.name.rsplit(".", 1)[-1], []).append(definition)
    return Members(by_class, methods, named)


def innermost(definitions, line):
    """The most nested definition whose lines (decorators included) hold `line`, or None."""
    holding = [d for d in definitions if d.start <= line <= d.end]
    return max(holding, key=lambda d: d.depth, default=None)


def signature(definition):
    """Its signature on one line, as an outline lists it: "def post(self, entry):"."""
    return " ".join(part.strip() for part in definition.header)
