"""Whom an edit written as text is for: the file a model names, as it names it.

Part of text_edits.py. A block's name is on the line before it ("Here's the modified code for
`path_rules.py`:", **pricing.py**, a bare path), in its first-line comment (`# pricing.py`) or in
its info string (```python pricing.py); a diff names its files in its ---/+++ lines.

What this file deliberately is not: a path resolver. It compares names with the task's lists
only, touches no file system, and never turns a name it does not know into an editable file.
"""
import re

from loop.text_edits_code import problem
from workspace.user_tests import is_test

WORDS = re.compile(r"[\w.\-/\\]+")  # path-like runs: one pass, no backtracking


class FileNames:
    """The task's editable and readable-only files, and how a model's words map onto them."""

    def __init__(self, editable, readable):
        self.editable = list(editable)
        self.readable = [path for path in readable or () if isinstance(path, str) and path not in self.editable]
        self.extensions = {path.rsplit(".", 1)[-1] for path in self.editable if "." in path}

    def for_block(self, info, comment, line_before):
        """(kind, path) for a block, kind "editable", "readable" or "unknown"; or None.
        An editable file named in any of the three places wins, so "the fix for `pricing.py`,
        which makes tests/test_checkout.py pass:" is for pricing.py; then a readable one."""
        named = [found for line in (info, comment, line_before) if (found := self.in_line(line))]
        return min(named, key=lambda found: found[0] != "editable", default=None)

    def in_line(self, line):
        """The file a line names: one editable file, else a readable one, else an unknown one.
        Several editable files on one line name none (say which, or the definitions decide)."""
        found = [hit for word in WORDS.findall(line) if "." in word and (hit := self.resolve(word))]
        editable = {path for kind, path in found if kind == "editable"}
        if len(editable) == 1:
            return "editable", editable.pop()
        others = [hit for hit in found if hit[0] != "editable"]
        return None if editable or not others else min(others, key=lambda hit: hit[0] != "readable")

    def resolve(self, word):
        """(kind, path) for a file name as a model writes it, or None when it names no file.
        The exact relative path first; then the base name, when exactly one known file has it:
        models add folders they imagine (src/pricing.py) or drop real ones (test_checkout.py)."""
        name = word.strip(".-").replace("\\", "/").removeprefix("./")
        base = name.rsplit("/", 1)[-1]
        if "." not in base:
            return None
        lists = (("editable", self.editable), ("readable", self.readable))
        for kind, known in lists:
            if name in known:
                return kind, name
        for kind, known in lists:
            same = [path for path in known if path.rsplit("/", 1)[-1] == base]
            if len(same) == 1:
                return kind, same[0]
        # Another name counts only with an editable file's extension: "os.path" names no file.
        # It is read as no name at all unless the block would be an edit of nothing (a new file).
        return ("unknown", name) if base.rsplit(".", 1)[1] in self.extensions else None

    def only_editable(self):
        """A diff block without ---/+++ lines in a one-file task can only be for that file."""
        return ("editable", self.editable[0]) if len(self.editable) == 1 else None

    def refusal(self, path, form):
        editable = ", ".join(self.editable)
        if is_test(path):
            return problem(path, f"{path} is a test file: tests are never edited; change {editable} "
                                 "so that they pass", form)
        return problem(path, f"{path} is not an editable file; the files you can edit: {editable}", form)
