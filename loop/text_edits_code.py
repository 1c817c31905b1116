"""Edits written as Python: one fenced block read as whole definitions, or as a whole file.

Part of text_edits.py, which finds the blocks and their names and hands each one here with the
editable files as they are now. `ast` does the reading; the rules here are about meaning:

    definitions  every top-level def or class the block shares with a file replaces the file's
                 (decorators included); test functions, calls and imports in the block are ignored
    whole file   the block replaces the file, when definitions cannot carry its change

What this file deliberately is not: a merger of code. It never edits inside a definition, never
adds code of its own, and runs nothing: Python is parsed, never evaluated.
"""
import ast
import re
from collections import namedtuple

DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Statements that do something when the module is imported: new ones in a block are a demo or a
# test (print(...), assert ..., run_tests()), never part of the module the model meant to write.
RUNS_ON_IMPORT = (ast.Expr, ast.Assert, ast.For, ast.AsyncFor, ast.While, ast.With, ast.Raise, ast.Delete)
TEST_MODULES = {"pytest", "unittest"}
TOP_LEVEL_DEF = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.M)  # in code that does not parse

# defs: {name: source lines}; names: every top-level binding; statements: {source: runs on import}
# for the rest (the docstring aside); modules: the module names imported at the top level.
Outline = namedtuple("Outline", "defs names statements modules")
# One editable file as the edits so far leave it, read once per version (text_edits.py keeps it):
# its outline (None when it does not parse), its text, and the top-level def and class names its
# lines show. For a file that does not parse those come from a regex; reading them once here, not
# once per block, keeps a reply of many blocks linear against a large broken file.
EditableFile = namedtuple("EditableFile", "outline text defined")


def outline(code):
    """(what the module's top level holds, None), or (None, "line N: why it does not parse")."""
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        return None, f"line {error.lineno}: {error.msg}"
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes, surrogates, nesting
        return None, f"{type(error).__name__}: {error}"[:200]
    starts = [0] + [match.end() for match in re.finditer(r"\r\n?|\n", code)]
    found = Outline({}, set(), {}, set())
    for index, node in enumerate(tree.body):
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        source = _lines(code, starts, first, node.end_lineno)
        found.names.update(_bound_names(node))
        found.modules.update(_imported_modules(node))
        if isinstance(node, DEFINITION):
            found.defs[node.name] = source
        elif not (index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            found.statements[source] = isinstance(node, RUNS_ON_IMPORT)
    return found, None


def read_editable(text):
    """The EditableFile of `text`: parsed once, for every block of the reply that needs it."""
    found = outline(text)[0]
    return EditableFile(found, text, set(found.defs) if found else set(TOP_LEVEL_DEF.findall(text)))


def _lines(code, starts, first, last):
    """Whole lines `first`..`last` (1-based) without the final line break: what the model saw."""
    end = starts[last] if last < len(starts) else len(code)
    while end > starts[first - 1] and code[end - 1] in "\r\n":
        end -= 1
    return code[starts[first - 1]:end]


def _bound_names(node):
    if isinstance(node, DEFINITION):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*"}
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return {name.id for target in targets if target for name in ast.walk(target) if isinstance(name, ast.Name)}


def _imported_modules(node):
    if isinstance(node, ast.Import):
        return {part for alias in node.names for part in alias.name.split(".")}
    if isinstance(node, ast.ImportFrom) and node.module:
        return set(node.module.split("."))
    return set()


def is_test_name(name):
    return name.startswith(("test_", "Test"))


def edit(path, old, new, form):
    return {"path": path, "old": old, "new": new, "form": form}


def problem(path, message, form, noop=False):
    """An error result. noop marks "nothing would change" (`unchanged`: the model wrote the code
    back as it is), which text_edits.py drops when another block of the reply does change
    something (a model often quotes the file first)."""
    return {"path": path, "error": message, "form": form, **({"unchanged": True} if noop else {})}


def python_edits(code, block, named, outlines):
    """The results of one block that parses, computed against the files as they are now.
    block: outline(code); named: the editable path it is named for, or None;
    outlines: {editable path: its EditableFile (read_editable)}."""
    if named and outlines[named].outline is None:  # the file no longer parses (a bad earlier edit)
        return [_replace_broken_file(code, block, named, outlines[named])]
    whole = _whole_file_target(block, named, outlines)
    return [_whole_file(code, whole, outlines[whole].text)] if whole else _definition_edits(block, named, outlines)


def _whole_file(code, path, old):
    new = code.strip("\r\n") + ("\n" if old.endswith("\n") else "")
    if new == old:
        return problem(path, f"the block for {path} is the same as the file (a no-op): write the corrected code",
                       "whole_file", noop=True)
    return edit(path, old, new, "whole_file")


def _replace_broken_file(code, block, path, file):
    """Definitions cannot be found in a file that does not parse: only a whole file repairs it,
    and a named block counts as one when it defines every def and class the file still shows.
    code: "" for an unnamed block, which is never taken as a whole file here; file: EditableFile."""
    if code and file.defined <= block.defs.keys():
        return _whole_file(code, path, file.text)
    return problem(path, f"{path} does not parse as Python now, so no definition can be replaced in it: "
                         "write the whole file", "whole_file")


def _whole_file_target(block, named, outlines):
    """The path this block replaces as a whole file, or None to read it as definitions.

    Why so strict: a right fix followed by test code, applied as a whole file, broke the module
    in a real probe, while definitions repaired all three right fixes; a whole file also writes
    in what the model abbreviated (a docstring cut to "Choose which..."). So definitions are the
    default, and a whole file is used only when definitions cannot carry the change: the block
    adds or changes a module-level statement (a new import, a changed constant). Even then it
    must be the whole file: every top-level name the file binds, no test code or calls the file
    lacks, no definition another editable file owns; and for one file (named, or the only fit)."""
    fits = [path for path in ([named] if named else outlines) if _is_whole_file(block, path, outlines)]
    return fits[0] if len(fits) == 1 else None


def _is_whole_file(block, path, outlines):
    file = outlines[path].outline
    if file is None or not file.names <= block.names:
        return False
    changes_module_level = any(source not in file.statements for source in block.statements)
    # Looked up name by name, never by joining the other files' names: that costs a pass over
    # every other file per block, quadratic in a reply of many blocks.
    new_names = block.defs.keys() - file.defs.keys()
    takes_others = any(name in other.outline.defs for p, other in outlines.items()
                       if other.outline and p != path for name in new_names)
    return changes_module_level and not _test_code(block, file, path) and not takes_others


def _test_code(block, file, path):
    """Whether the block holds code of a test rather than of the module at `path`."""
    module = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    new_runs = any(runs and source not in file.statements for source, runs in block.statements.items())
    new_tests = any(is_test_name(name) and name not in file.defs for name in block.defs)
    imports_tests = bool(block.modules & (TEST_MODULES | {module}) - file.modules)
    return new_runs or new_tests or imports_tests


def _definition_edits(block, named, outlines):
    results, ambiguous, unchanged = [], [], []
    for name, new in block.defs.items():
        owners = [path for path in ([named] if named else outlines)
                  if outlines[path].outline and name in outlines[path].outline.defs]
        if len(owners) > 1:  # the same name in several files: only a block named for one applies
            ambiguous.append((name, owners))
        elif owners and outlines[owners[0]].outline.defs[name] == new:
            unchanged.append(owners[0])  # identical to the file's: skipped
        elif owners:
            results.append(edit(owners[0], outlines[owners[0]].outline.defs[name], new, "definitions"))
    if ambiguous:
        name, owners = ambiguous[0]
        results.append(problem(None, f"{name} is defined in {' and '.join(owners)}: say which file the "
                               f"block is for on the line before it, for example `{owners[0]}`:", "definitions"))
    broken = [path for path, file in outlines.items() if file.outline is None and not named
              and not file.defined.isdisjoint(block.defs)]
    if not results and broken:
        results.append(_replace_broken_file("", block, broken[0], outlines[broken[0]]))
    if not results and unchanged:
        results.append(problem(unchanged[0], f"the code for {unchanged[0]} is the same as the file's (a no-op): "
                               "nothing would change; write the corrected code", "definitions", noop=True))
    elif not results and named and any(not is_test_name(name) for name in block.defs):
        results.append(problem(named, f"the block for {named} defines none of its functions or classes: "
                               "write each definition you change in full, or the whole file", "definitions"))
    return results
