"""Edits written as methods: a block's methods replace the same methods of a class in a file.

Part of text_edits.py, read when a long file is answered by definitions (answer_form "auto" or
"definitions": the model is shown the methods at fault, loop/context_defs.py). How a small model
writes a method back, and what each shape means here:

    inside its class   class Journal:  + the method(s) changed, the class's other members left
                       out: each method given replaces the class's method of that name
    alone              def post(self, entry): ..., indented or not: the method of that name,
                       when exactly one class of the candidate files defines it (two: refused,
                       naming both); a top-level function of that name stays text_edits_code's
    decorated, async   decorators given replace the file's; a method given without any keeps
                       the file's (a small model drops the @property it was shown)

Only the methods given change: the class's other members stay byte for byte. The new code is
written in the file's indentation (its depth, spaces or tabs, its width); line endings are kept
by loop/written.py. An edit that would leave the file unparsable is refused with the line.

What this file deliberately is not: a merger. A method the class lacks is refused (write the
whole class), statements beside the methods in a class block are ignored, nothing is run.
"""
import ast

from loop.module_map import members, source_lines
from loop.text_edits_code import edit, problem

FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef)


def method_edits(code, named, outlines):
    """(results, the block's top-level names they answer for) for one block that parses.
    named: the editable path the block is named for, or None (then every editable file is a
    candidate); outlines: {path: EditableFile}, the files as the earlier edits left them."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], set()
    block = _Block(source_lines(code))
    candidates = [path for path in ([named] if named else outlines) if outlines[path].outline is not None]
    results, handled = [], set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            found = _class_edits(node, candidates, outlines, block)
        elif isinstance(node, FUNCTION):
            found = _bare_method(node, candidates, outlines, block)
        else:
            continue
        if found is not None:
            results += found
            handled.add(node.name)
    return _parse_checked(results, outlines), handled


class _Block:
    """The block's lines, and how to write one of its definitions into a file's indentation."""

    def __init__(self, lines):
        self.lines = lines

    def source(self, node, file_lines, target):
        """`node`'s lines (decorators included), re-indented as `target` is in the file."""
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        lines = self.lines[first - 1:node.end_lineno]
        inside = {n for s in ast.walk(node) if isinstance(s, (ast.Constant, ast.JoinedStr))
                  and s.end_lineno > s.lineno for n in range(s.lineno + 1, s.end_lineno + 1)}
        body = node.body[0].lineno if node.body else node.lineno
        base, unit = _indent(self.lines, node.lineno, body), _indent(file_lines, target.line, target.body)
        out = []
        for number, line in enumerate(lines, first):
            body = line[len(base[0]):] if line.startswith(base[0]) else line.lstrip(" \t")
            if number not in inside and base[1] and unit[1]:
                body = _respell(body, base[1], unit[1])
            out.append(unit[0] + body if body.strip() else "")
        return "\n".join(out)


def _indent(lines, line, body):
    """(the leading whitespace of def line `line`, one level of its body's indentation or "")."""
    own = _lead(lines[line - 1])
    if body <= line:  # def f(): return 1
        return own, ""
    inner = _lead(lines[body - 1])
    return own, inner[len(own):] if inner.startswith(own) and len(inner) > len(own) else ""


def _lead(line):
    return line[:len(line) - len(line.lstrip(" \t"))]


def _respell(body, unit, wanted):
    """`body` with its leading whitespace written in the file's unit, when it is whole units."""
    stripped = body.lstrip(" \t")
    lead = _lead(body)
    levels, rest = divmod(len(lead), len(unit))
    return wanted * levels + stripped if not rest and lead == unit * levels else body


def _class_edits(node, candidates, outlines, block, parent=None):
    """The edits of a class block, method by method, or None when no file has such a class, or
    when the block is the whole class with more than methods (text_edits_code replaces it whole)."""
    name = f"{parent}.{node.name}" if parent else node.name
    owners = [path for path in candidates if name in members(outlines[path].text).by_class]
    if len(owners) != 1:
        return None  # no such class, or one in several files: text_edits_code decides
    path, given = owners[0], [m for m in node.body if isinstance(m, (*FUNCTION, ast.ClassDef))]
    known = members(outlines[path].text)
    if parent is None and known.by_class[name] <= {m.name for m in given} and _states_more(node):
        return None  # the whole class, a class attribute changed with it: text_edits_code replaces it
    results = []
    for member in given:
        qualified = f"{name}.{member.name}"
        target = known.named.get(qualified)
        if isinstance(member, ast.ClassDef) and target is not None:
            results += _class_edits(member, [path], outlines, block, parent=name) or []
        elif target is not None and target.kind == "def" and isinstance(member, FUNCTION):
            results.append(_method_edit(path, outlines[path].text, target, member, block))
        else:
            results.append(problem(path, f"class {name} in {path} has no {member.name} to replace: to add one, "
                                         "write the whole class", "definitions"))
    return results


def _states_more(node):
    """Whether a class block holds statements besides its defs, docstring, `...` and `pass`."""
    return any(not isinstance(statement, (*FUNCTION, ast.ClassDef, ast.Pass)) and not (
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)) for statement in node.body)


def _bare_method(node, candidates, outlines, block):
    """The edit of a function the files define only as one class's method, or None."""
    if any(node.name in outlines[path].outline.defs for path in candidates):
        return None  # a top-level function of that name: text_edits_code's
    owners = [(path, target) for path in candidates for target in members(outlines[path].text).methods.get(node.name, ())]
    if not owners:
        return None
    if len(owners) > 1:
        places = " and ".join(f"{target.parent} ({path})" for path, target in owners[:3])
        return [problem(owners[0][0], f"{node.name} is a method of {places}: write it inside its class line, "
                                      f"for example `class {owners[0][1].parent.rsplit('.', 1)[-1]}:`", "definitions")]
    path, target = owners[0]
    return [_method_edit(path, outlines[path].text, target, node, block)]


def _method_edit(path, text, target, node, block):
    """The method's lines in the file replaced by the block's. Decorators given replace the
    file's; none given keeps the file's (a small model drops an @property it was shown)."""
    lines = source_lines(text)
    old = "\n".join(lines[(target.start if node.decorator_list else target.line) - 1:target.end])
    new = block.source(node, lines, target)
    if new == old:
        return problem(path, f"the code of {target.name} is the same as in {path} (a no-op): nothing would "
                             "change; write the corrected code", "definitions", noop=True)
    return edit(path, old, new, "definitions")


def _parse_checked(results, outlines):
    """The results, but a file the edits would leave unparsable gets one refusal instead of them,
    with the SyntaxError's line, so the model can correct its indentation or its code."""
    checked, by_path = [], {}
    for result in results:
        by_path.setdefault(result["path"], []).append(result)
    for path, found in by_path.items():
        if not any("old" in result for result in found):
            checked += found  # only refusals: nothing to parse (at most MAX_RESULTS parses a reply)
            continue
        text = outlines[path].text
        for result in found:
            if "old" in result and text.count(result["old"]) == 1:
                text = text.replace(result["old"], result["new"], 1)
        try:
            ast.parse(text)
        except SyntaxError as error:
            checked.append(problem(path, f"with this code {path} would not parse (line {error.lineno}: {error.msg}): "
                                         "correct it and send the method again", "definitions"))
            continue
        except (ValueError, RecursionError, MemoryError):
            pass
        checked += found
    return checked
