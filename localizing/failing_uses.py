"""The repository code a failing test uses, in the order it names it: what a model sees first.

A small model answers about the first file it is shown, and a 12,000-character preload holds
two or three files of a real library. When a test fails by assertion no traceback frame points
into the code, so folder depth and names chose `setup.py` and Sphinx's `docs/conf.py` over the
module with the bug. The test itself says better: `used_by(imports, test_id)` reads the failing
test's function (a method of its class, parameters dropped from the id) and lists, in the order
its source names them, the files that define what it calls (`inflection.camelize(...)`,
`add(2, 2)`, a module-level `slugify = partial(public_slugify, ...)` followed one step), then
the rest of its file's imports. `called_names(imports, test_id)` is the same reading one step
finer: the names it calls (`camelize`, `post` of `journal.post(...)`), which definitions of
those files the ranking (ranking.py) credits.

What this file deliberately is not: a call graph. It reads names, not types: a fixture, a
method called on a returned object or code reached only through other code is not followed.
"""
import ast
import re

from workspace.python_imports import parse


def used_by(imports, test_id):
    """The repository files the test `test_id` ("tests/test_a.py::TestCase::test_x[1-2]") uses,
    in order; `imports` is a workspace.python_imports.Imports of the repository."""
    path, *names = test_id.split("::")
    module = parse(imports.tree, path)
    function = _function(module, [re.sub(r"\[.*", "", name) for name in names])
    # A module-level name stands for the names its value uses.
    aliases = {target.id: _uses(node.value) for node in (module.body if module else [])
               if isinstance(node, ast.Assign) for target in node.targets if isinstance(target, ast.Name)}
    used = [use for name, attribute in _uses(function) for use in [(name, attribute), *aliases.get(name, [])]]
    defined = [imports.defined_in(path, name, attribute) for name, attribute in used]
    return list(dict.fromkeys([*(f for f in defined if f), *imports.of(path)]))


def called_names(imports, test_id):
    """{name}: what the test `test_id` calls, by its last name (`words.ordinal(2)` calls "ordinal")."""
    path, *names = test_id.split("::")
    module = parse(imports.tree, path)
    function = _function(module, [re.sub(r"\[.*", "", name) for name in names])
    calls = [node.func for node in ast.walk(function) if isinstance(node, ast.Call)] if function is not None else []
    return {n.attr if isinstance(n, ast.Attribute) else n.id for n in calls if isinstance(n, (ast.Attribute, ast.Name))}


def _uses(node):
    """[(name, attribute or None)] for each name `node` uses, in source order: `words.ordinal(22)`
    is ("words", "ordinal")."""
    if node is None:
        return []
    attribute = {id(n.value): n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
                 and isinstance(n.value, ast.Name)}
    names = sorted((n for n in ast.walk(node) if isinstance(n, ast.Name)), key=lambda n: (n.lineno, n.col_offset))
    return [(n.id, attribute.get(id(n))) for n in names]


def _function(module, names):
    """The def of `names` (a class, then its method; or a function) in `module`, or None."""
    body = module.body if module is not None else []
    for depth, name in enumerate(names):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == name), None)
        if node is None or depth == len(names) - 1:
            return node
        body = node.body
    return None
