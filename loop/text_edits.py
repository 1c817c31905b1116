"""Recover edits that a small model wrote as code in its reply instead of calling replace_text.

`find_text_edits(reply, files, test_files)` returns them in reply order, each ready to run as
`replace_text(path, old, new)`, or an error the model can act on. The forms (TUTORIAL.md,
section 4.10):

    1. definitions  ```python def percent_off(...): ...```   replaces the file's def of that name
    2. whole file   ```python <every name of pricing.py, and a new import>```   replaces the file
    3. diff         ```diff --- a/pricing.py +++ b/pricing.py @@ ...```, fenced or bare

This file decides where to look: fenced blocks by their label, and bare diffs in the prose
between them. Whom a block is for is decided in text_edits_names.py (the name on the line before
it, in its first-line comment or its info string), what it means in text_edits_code.py (Python)
and text_edits_diff.py (diffs). Each edit is computed against the files as the earlier edits of
the same reply leave them, so the edits can run one after another.

What this file deliberately is not: an editor. It writes no file and runs nothing; the loop runs
each edit through replace_text, with its allowlist and checks. It reads only blocks labelled as
Python or diffs (or unlabelled): json, tool_code, bash, ... are never edits. It never raises on
a str, and it is linear in the reply's length.
"""
import re
import textwrap

from loop.text_calls import FENCE  # one fenced block, read the same way for calls and for edits
from loop.text_edits_code import is_test_name, outline, problem, python_edits, read_editable
from loop.text_edits_defs import method_edits
from loop.text_edits_diff import HEADER, file_diffs, hunk_edit
from loop.text_edits_names import FileNames

PYTHON_LABELS = {"", "python", "py", "python3"}
DIFF_LABELS = {"diff", "patch", "udiff"}
DEFINED = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.M)
MAX_RESULTS = 50  # a bound on the work per reply; a model never needs more edits in one turn
MAX_BLOCK = 400_000  # repo_tools.MAX_FILE_BYTES: no file may be larger, so neither may its code


def find_text_edits(text, files, test_files=(), methods=False):
    """Edits written as text in a model reply.
    text: the reply (untrusted str, any size).
    files: {relative path: current text} of the task's EDITABLE files (e.g. {"pricing.py": "..."}).
    test_files: relative paths of the task's test files (e.g. ("tests/test_checkout.py",)) and any
      other readable-but-not-editable file names, so a block named for one is refused.
    Returns a list, in reply order, of either
      {"path": p, "old": exact current text to replace, "new": replacement, "form": "definitions"|"whole_file"|"diff"}
    or {"path": p or None, "error": "one sentence the model can act on", "form": ...}, with
      "unchanged": True when the error is that the edit would change nothing (a no-op).
    methods: whether a method written in its class, or alone, replaces that method of a class
      (text_edits_defs.py; answer_form "auto" or "definitions"); otherwise only top-level ones.
    Never raises on a str; returns [] when the reply holds no edit."""
    if not isinstance(text, str) or not isinstance(files, dict) or ("```" not in text and "+++ " not in text):
        return []  # the cheap pre-check: most replies hold neither a fence nor a diff header
    reply = _Reply({p: t for p, t in files.items() if isinstance(p, str) and isinstance(t, str)}, test_files, methods)
    try:
        reply.read(text.replace("\r\n", "\n"))
    except RecursionError:  # the parsers catch it themselves; this only backs them up
        pass
    return reply.finish()


class _Reply:
    """The results of one reply, in order, and the files as its edits so far leave them."""

    def __init__(self, files, test_files, methods=False):
        self.files, self.names, self.methods = files, FileNames(files, test_files), methods
        self.results, self.full, self._outlines = [], False, {}

    def read(self, text):
        free_from = 0
        for fence in FENCE.finditer(text) if "```" in text else ():
            if self.full:
                return
            prose = text[free_from:fence.start()]
            self.prose(prose)
            self.block(fence[1], fence[2], _last_line(prose))
            free_from = fence.end()
        self.prose(text[free_from:])

    def prose(self, segment):
        if "+++ " in segment:  # a bare diff: only with its ---/+++ headers, so prose is not misread
            self.diff(segment, None, fenced=False)

    def block(self, info, body, line_before):
        label = re.split(r"[\s:{]", info.strip(), maxsplit=1)[0].lower()
        is_python = label in PYTHON_LABELS or label.endswith(".py")  # ```pricing.py names a file too
        if not is_python and label not in DIFF_LABELS:
            return  # json, tool_code, bash, text, ...: never edits (they may be calls, or output)
        code = textwrap.dedent(body)  # a block indented under a list item ("1. Fix:\n   ```python")
        comment = re.match(r"\s*(#[^\n]*)", code)
        name = self.names.for_block(info, comment[1] if comment else "", line_before)
        if comment and self.names.in_line(comment[1]):  # "# pricing.py" labels the block: not content
            code = code[:comment.start(1)] + code[comment.end(1):]
        if not is_python or HEADER.search(code):
            self.diff(code, name, fenced=True, headerless=not is_python)
        else:
            self.python(code, name, labelled=label != "")

    def python(self, code, name, labelled):
        if len(code) > MAX_BLOCK or not DEFINED.search(code):
            return  # no def or class line: it defines nothing (calls, output), so skip the parse
        block, why = outline(code)
        kind, path = name or (None, None)
        if block is None:  # an unlabelled block that does not parse is output or prose: not ours
            owner = path if kind == "editable" else None if kind == "readable" else self.owner_of(code)
            if labelled and owner:
                self.add(problem(owner, f"the block for {owner} does not parse as Python ({why}): "
                                        "fix it and send the code again", "definitions"))
            return
        if not block.defs:
            return  # calls (run_tests()), imports, expressions: not an edit
        if kind == "readable":
            return self.add(self.names.refusal(path, "definitions"))
        results = self.definitions(code, block, path if kind == "editable" else None)
        if kind == "unknown" and not results and any(not is_test_name(n) for n in block.defs):
            results = [self.names.refusal(path, "definitions")]  # a new file: the model cannot create one
        for result in results:
            self.add(result)

    def definitions(self, code, block, named):
        """Methods first (when they are read: `methods`), then top-level definitions and whole files."""
        results, handled = method_edits(code, named, self.outlines()) if self.methods else ([], ())
        rest = {name: source for name, source in block.defs.items() if name not in handled}
        return results + (python_edits(code, block._replace(defs=rest), named, self.outlines()) if rest else [])

    def diff(self, text, name, fenced, headerless=False):
        for header_name, hunks in file_diffs(text, fenced, headerless):
            if header_name:
                target = self.names.resolve(header_name) or ("unknown", header_name)
            else:  # a diff block without ---/+++ lines: the block's name, or the only editable file
                target = name or self.names.only_editable()
            if target is None:
                self.add(problem(None, "the diff names no file: start it with --- a/FILE and +++ b/FILE "
                                       f"lines, FILE one of {', '.join(self.files)}", "diff"))
            elif target[0] != "editable":
                self.add(self.names.refusal(target[1], "diff"))
            else:
                for number, hunk in enumerate(hunks, 1):
                    if self.full:
                        return
                    self.add(hunk_edit(target[1], number, hunk, self.files[target[1]]))

    def owner_of(self, code):
        """The one editable file that defines a name this (broken) block defines, if any."""
        names = set(DEFINED.findall(code))
        owners = [path for path, file in self.outlines().items() if file.outline and names & file.defined]
        return owners[0] if len(owners) == 1 else None

    # --- The results, each applied to the working copy before the next is read ---

    def outlines(self):
        """{path: its EditableFile}, read again only when an edit changed it (at most
        MAX_RESULTS times a reply), so no block costs a pass over a file: linear."""
        for path, text in self.files.items():
            if path not in self._outlines or self._outlines[path].text is not text:
                self._outlines[path] = read_editable(text)
        return self._outlines

    def add(self, result):
        if result is None or self.full:
            return
        if len(self.results) >= MAX_RESULTS:
            self.full = True
            result = problem(None, f"only the first {MAX_RESULTS} edits of a reply are read; "
                                   "send the rest after these have run", result["form"])
        elif "old" in result:  # replace_text will need `old` exactly once: check it now, in order
            text, path = self.files[result["path"]], result["path"]
            count = text.count(result["old"]) if result["old"] else 0
            if count != 1:
                result = problem(path, f"the text to replace is found {count} times in {path}, not once: "
                                       "use replace_text with enough context to be unique", result["form"])
            else:
                self.files[path] = text.replace(result["old"], result["new"], 1)
        self.results.append(result)

    def finish(self):
        """The results, less the no-ops when something else in the reply changes a file: a model
        often quotes the current code before its fix, and that quote is no mistake."""
        changed = any("old" in result for result in self.results)
        return [result for result in self.results if not (result.get("unchanged") and changed)]


def _last_line(prose):
    """The last non-empty line before a fence: where "Here is the fixed `pricing.py`:" sits."""
    stripped = prose.rstrip()
    return stripped[stripped.rfind("\n") + 1:]
