"""Methods written back as edits (loop/text_edits_defs.py): a corpus of the shapes a small model
writes when shown a long file by definitions, each beside what it does to the file.

Every row is (id, reply, expected): expected is the file's text after the edits (applied as
replace_text applies them, exactly once), or ("error", words of the message). The file is a
hand-written class module in the shapes libraries have (tabs, a decorator, async, a nested
class, two classes with one method name); the rest of it must stay byte for byte.
"""
import time

import pytest

from loop.text_edits import find_text_edits

JOURNAL = '''"""Journals and ledgers."""
import asyncio


class Journal:
\t"""Entries, in order."""

\tdef __init__(self):
\t\tself.items = []

\t@property
\tdef size(self):
\t\treturn len(self.items) - 1

\tdef post(self, entry):
\t\tself.items.append(entry)
\t\treturn entry

\tasync def flush(self):
\t\tawait asyncio.sleep(0)
\t\treturn self.items[1:]

\tclass Page:
\t\tdef number(self):
\t\t\treturn 0


class Ledger:
\tdef post(self, amount):
\t\treturn amount


def helper(a):
\treturn a - 1
'''
FILES = {"journal.py": JOURNAL}


def fixed(old, new):
    assert JOURNAL.count(old) == 1
    return JOURNAL.replace(old, new)


SIZE_FIXED = fixed("len(self.items) - 1", "len(self.items)")
FLUSH_FIXED = fixed("self.items[1:]", "self.items[:]")
CORPUS = [
    ("method_inside_its_class_others_left_out", "The size is off by one. Fixed `journal.py`:\n```python\n"
     "class Journal:\n    @property\n    def size(self):\n        return len(self.items)\n```", SIZE_FIXED),
    ("class_with_an_ellipsis_for_the_rest", "journal.py\n```python\nclass Journal:\n    ...\n\n"
     "    @property\n    def size(self):\n        return len(self.items)\n\n    # the rest unchanged\n```", SIZE_FIXED),
    ("bare_method_indented", "```python\n    @property\n    def size(self):\n        return len(self.items)\n```",
     SIZE_FIXED),
    ("bare_method_unindented_without_its_decorator", "Here is the corrected method:\n```python\ndef size(self):\n"
     "    return len(self.items)\n```\nThis removes the off-by-one.", SIZE_FIXED),
    ("decorator_replaced_as_given", "```python\n@staticmethod\ndef size(items):\n    return len(items)\n```",
     fixed("\t@property\n\tdef size(self):\n\t\treturn len(self.items) - 1",
           "\t@staticmethod\n\tdef size(items):\n\t\treturn len(items)")),
    ("async_method", "```python\nasync def flush(self):\n    await asyncio.sleep(0)\n    return self.items[:]\n```",
     FLUSH_FIXED),
    ("nested_class_method_in_its_classes", "```python\nclass Journal:\n    class Page:\n        def number(self):\n"
     "            return 1\n```", fixed("\t\t\treturn 0", "\t\t\treturn 1")),
    ("nested_class_method_alone", "```python\ndef number(self):\n    return 1\n```", fixed("\t\t\treturn 0", "\t\t\treturn 1")),
    ("top_level_function_stays_a_function", "```python\ndef helper(a):\n    return a\n```",
     fixed("def helper(a):\n\treturn a - 1", "def helper(a):\n    return a")),
    ("two_methods_two_spaces_wide", "journal.py\n```python\nclass Journal:\n  @property\n  def size(self):\n"
     "    return len(self.items)\n\n  async def flush(self):\n    await asyncio.sleep(0)\n    return self.items[:]\n```",
     SIZE_FIXED.replace("self.items[1:]", "self.items[:]")),
    ("docstring_lines_keep_their_text", '```python\ndef post(self, entry):\n    """Add it.\n\n    Returns it."""\n'
     "    return entry\n```", ("error", "post is a method of Journal (journal.py) and Ledger (journal.py)")),
    ("whole_class_of_methods_in_the_files_indentation", "```python\nclass Journal:\n    class Page:\n"
     "        def number(self):\n            return 2\n```", fixed("\t\t\treturn 0", "\t\t\treturn 2")),
    ("one_name_two_classes_in_its_class", "```python\nclass Ledger:\n    def post(self, amount):\n        return -amount\n```",
     fixed("\t\treturn amount\n", "\t\treturn -amount\n")),
    ("a_method_the_class_lacks", "```python\nclass Journal:\n    def clear(self):\n        self.items = []\n```",
     ("error", "class Journal in journal.py has no clear to replace")),
    ("indentation_that_breaks_the_file", "```python\ndef size(self):\n  if self:\n     return 1\n  return 0\n```",
     ("error", "journal.py would not parse (line")),
    ("written_back_unchanged", "```python\ndef number(self):\n    return 0\n```\n"
     "```python\nclass Ledger:\n    def post(self, amount):\n        return amount\n```", ("error", "no-op")),
]


def applied(results):
    text = JOURNAL
    for result in results:
        if "old" in result:
            assert text.count(result["old"]) == 1, result
            text = text.replace(result["old"], result["new"])
    return text


@pytest.mark.parametrize("reply, expected", [row[1:] for row in CORPUS], ids=[row[0] for row in CORPUS])
def test_corpus(reply, expected):
    results = find_text_edits(reply, dict(FILES), methods=True)
    if isinstance(expected, tuple):
        errors = [result["error"] for result in results if "error" in result]
        assert errors and expected[1] in errors[0], results
    else:
        assert [result.get("error") for result in results] == [None] * len(results)
        assert applied(results) == expected


def test_without_methods_a_method_alone_is_no_edit_as_before():
    """answer_form="file" (every recording made before it): replays read what they read then."""
    assert find_text_edits("```python\ndef size(self):\n    return len(self.items)\n```", dict(FILES)) == []


def big_module(classes):
    return "".join(f"class C{n}:\n    def m{n}(self):\n        return {n}\n\n    def shared(self):\n        return 0\n\n\n"
                   for n in range(classes))


def test_many_method_blocks_take_time_linear_in_the_reply_and_the_file():
    """Each block looks its names up; none walks the file again. A wide bound on the growth
    (4x the input, at most 8x the time plus slack), not a speed; the best of three runs."""
    def seconds(size):
        # Every block is read (none is an edit, so the reply is never cut at 50 results), and
        # each asks the file for methods and classes of its names.
        reply = "".join(f"```python\nclass D{n}:\n    def absent(self):\n        return {n}\n```\n"
                        f"```python\n    def gone{n}(self):\n        return {n}\n```\n" for n in range(size))
        files = {"big.py": big_module(size)}
        started = time.perf_counter()
        assert find_text_edits(reply, files, methods=True) == []
        return time.perf_counter() - started

    small = min(seconds(300) for _ in range(3))
    large = min(seconds(1_200) for _ in range(2))
    assert large <= 8 * small + 0.5, f"4x the input took {large:.2f} s against {small:.2f} s"
