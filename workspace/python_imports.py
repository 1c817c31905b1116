"""Which of a repository's own modules a Python file imports, read from its text, never run.

fix.py needs two answers from a user's code before any model sees it: which modules the tests
use (workspace/user_tests.py: test-support code is what they import and the product does not),
and which code a failing test calls (localizing/failing_uses.py: what a model is shown first). Both
come from the import statements, found by `ast` in every function and class too (tests often
import inside a test), and resolved to the repository's files as Python would find them from
the places a project puts on its path: the repository's root, `src/`, and each folder above
the importing file (pytest puts a test file's folder on the path).

`Imports(tree, files)` reads each file once, when first asked:

- `of(path)`: the repository files `path` imports, packages' `__init__.py` included;
- `names(path)`: what each name an import binds in `path` stands for (a `Binding`); the modules
  a `pytest_plugins = [...]` names count as imports (pytest imports them for the file);
- `module(dotted)`: the files of one module by its dotted name (what `-p NAME` loads);
- `defined_in(path, name, attribute)`: the file that defines what a name stands for, through a
  package's re-exports (`import words; words.ordinal` is defined in words/suffixes.py).

What this file deliberately is not: an importer. Nothing is executed: `importlib` calls,
`sys.path` changes and `__import__` are not seen, so the answer is a close reading, not proof.
A file that is too big, not UTF-8 or not valid Python imports nothing.
"""
import ast
from collections import namedtuple
from pathlib import Path, PurePosixPath

from workspace.file_limits import MAX_FILE_BYTES

# What one name bound by an import stands for: its module's files (its packages' __init__.py
# first, the module last), and the attribute looked up in that module (`from calc import add`).
Binding = namedtuple("Binding", "files attribute")


class Imports:
    """The imports of every Python file of `files` (relative paths) under `tree`, read lazily."""

    def __init__(self, tree, files):
        self.tree, self.files = Path(tree), set(files)
        self._bound = {}

    def of(self, path):
        """The repository files `path` imports, in the order of its import statements."""
        return list(dict.fromkeys(file for binding in self.names(path).values() for file in binding.files))

    def names(self, path):
        """{name bound in `path`: its Binding}: `import calc.ops` binds "calc" to calc/__init__.py
        and calc/ops.py; `from calc.ops import add` binds "add" to them, attribute "add"."""
        if path not in self._bound:
            self._bound[path] = _bound_names(self.tree, path, self.files)
        return self._bound[path]

    def defined_in(self, path, name, attribute=None, depth=5):
        """The repository file that defines what `name` (with `.attribute`, when it names a
        module) stands for in `path`, through a package's re-exports (`from .suffixes import
        ordinal` in words/__init__.py); None when it is not the repository's."""
        binding = self.names(path).get(name)
        if binding is None or not binding.files:
            return None
        module, inner = binding.files[-1], binding.attribute or attribute
        if inner and depth and inner in self.names(module):
            return self.defined_in(module, inner, None, depth - 1) or module
        return module

    def module(self, dotted):
        """The repository files of the module `dotted` as pytest's `-p NAME` imports it (from the
        root or src/), its packages' __init__.py first; [] when the repository has none."""
        return _module("", dotted, self.files)


def parse(tree, path):
    """The module `path` as an ast, or None (too big, unreadable, not UTF-8, not Python)."""
    try:
        source = Path(tree, path)
        # Bigger than the model may edit: not read here either (parsing costs ~110 MB per MB).
        if source.is_symlink() or source.stat().st_size > MAX_FILE_BYTES:
            return None
        return ast.parse(source.read_bytes().decode("utf-8"), filename=path)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _bound_names(tree, path, files):
    module = parse(tree, path)
    bound = {}
    for name in _plugins(module):  # pytest imports them for the file: as good as an import
        bound[f"pytest_plugins:{name}"] = Binding(_module(path, name, files), None)
    for node in ast.walk(module) if module is not None else ():
        if isinstance(node, ast.Import):
            for alias in node.names:
                key = alias.asname or alias.name.split(".")[0]
                earlier = bound[key].files if key in bound else []
                bound[key] = Binding([*earlier, *_module(path, alias.name, files)], None)
        elif isinstance(node, ast.ImportFrom):
            base, folder = _base(path, node, files)
            for alias in node.names:
                # `from calc import ops`: ops may be a module of its own, or a name calc defines.
                dotted = f"{node.module}.{alias.name}" if node.module else alias.name
                own = [] if alias.name == "*" else _module(path, dotted, files, folder, parents=False)
                bound[alias.asname or alias.name] = Binding([*base, *own], None if own else alias.name)
    return bound


def _plugins(module):
    """The modules a top-level `pytest_plugins = "a"` or `= ["a", "b"]` (a list or a tuple) names."""
    for node in module.body if module is not None else ():
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(target, ast.Name) and target.id == "pytest_plugins" for target in targets):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            yield from (v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str))


def _base(path, node, files):
    """(the files of the module `node` imports from, the folder a relative import starts in)."""
    if node.level == 0:
        return _module(path, node.module, files), None
    folder = PurePosixPath(path).parent
    for _ in range(node.level - 1):
        folder = folder.parent
    folder = "" if str(folder) == "." else f"{folder}/"
    if node.module is None:  # `from . import x`: the package's own __init__.py
        return [f for f in (f"{folder}__init__.py",) if f in files], folder
    return _module(path, node.module, files, folder), folder


def _module(importer, dotted, files, folder=None, parents=True):
    """The files of the module `dotted`, after its packages' __init__.py files (`parents`),
    looked for in `folder` alone (a relative import) or in each root in turn; [] when the
    repository has no such module (the standard library, a dependency)."""
    parts = dotted.split(".")
    for root in [folder] if folder is not None else _roots(importer):
        stem = root + "/".join(parts)
        found = [f for f in (f"{stem}.py", f"{stem}/__init__.py") if f in files]
        if found:
            above = [f"{root}{'/'.join(parts[:depth])}/__init__.py" for depth in range(1, len(parts))] if parents else []
            return [*(f for f in above if f in files), *found]
    return []


def _roots(importer):
    """Where Python would look, relative: the root, src/, and each folder above `importer`."""
    above = [f"{parent}/" for parent in PurePosixPath(importer).parents if str(parent) != "."]
    return list(dict.fromkeys(["", "src/", *above]))
