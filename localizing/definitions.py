"""A module's functions and methods, as `ast` reads them: what a ranked line belongs to.

`definitions(tree, path)` lists each function and method of the file `path` under `tree` as a
`Definition(name, start, end)`: the qualified name (`Journal.post`, `outer.inner` for a nested
function), the first line (its first decorator's, so what a model is shown is the whole
definition) and the last line. `enclosing(found, line)` is the innermost one holding a line.

What this file deliberately is not: an importer or a runner. Nothing is executed; a file that
is too big, not UTF-8 or not valid Python (workspace/python_imports.parse) has no definitions,
and a nesting too deep to walk stops the walk where it is.
"""
from collections import namedtuple

import ast

from workspace.python_imports import parse

Definition = namedtuple("Definition", "name start end")
DEEPEST = 50  # nesting levels walked: real code nests a few; a hostile file may nest thousands
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def definitions(tree, path):
    """[Definition] of every function and method of `path`, in source order; [] when it cannot be read."""
    module = parse(tree, path)
    found = []
    if module is not None:
        _walk(module.body, "", found, 0)
    return sorted(found, key=lambda d: (d.start, -d.end))


def _walk(body, prefix, found, depth):
    if depth > DEEPEST:
        return
    for node in body:
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            name = f"{prefix}{node.name}"
            if isinstance(node, FUNCTIONS):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                found.append(Definition(name, start, node.end_lineno or node.lineno))
            _walk(node.body, f"{name}.", found, depth + 1)
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            # A definition under `if sys.version_info...:` or `try:` is still the module's.
            inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", []),
                     *(statement for handler in getattr(node, "handlers", []) for statement in handler.body)]
            _walk(inner, prefix, found, depth + 1)


def enclosing(found, line):
    """The innermost Definition of `found` that holds `line`, or None (module-level code)."""
    holding = [d for d in found if d.start <= line <= d.end]
    return min(holding, key=lambda d: d.end - d.start) if holding else None
