"""Edits written as text: a corpus of model replies about the real tasks, each beside its edits.

Every row is (id, task, reply, expected results, repairs). The files are the tasks' own
(tasks/*/repo/, sample_repo/path_rules.py); a result is (form, path) for an edit and
("error", path, words of its message) for an error. `repairs` rows must fix the task: the edits,
applied one after another with exact-once replacement, give the solution's text, or else code
that passes the task's tests. Read the rows as a catalogue of how small models write edits.
"""
import ast
import os
import shutil
import subprocess
import sys
import time

import pytest

from loop.text_edits import find_text_edits
from workspace.task_catalog import load_task, solution_edits, task_names

TASKS = {name: load_task(name) for name in task_names()}
TWO_PRICINGS = "discount_percent, with a copy legacy_pricing.py"  # one name in two editable files


def original(task, path):
    return (TASKS[task].repo / path).read_text(encoding="utf-8")


def fixed(task, path):
    text = original(task, path)
    for edit in solution_edits(TASKS[task]):
        text = text.replace(edit["old"], edit["new"], 1) if edit["path"] == path else text
    return text


def files_of(task):
    """(editable {path: text}, readable-only paths), as the loop will pass them."""
    if task == TWO_PRICINGS:
        return {"pricing.py": original("discount_percent", "pricing.py"),
                "legacy_pricing.py": original("discount_percent", "pricing.py")}, ("tests/test_checkout.py",)
    spec = TASKS[task]
    return {p: original(task, p) for p in spec.editable}, tuple(p for p in spec.readable if p not in spec.editable)


def definition(text, name):
    """The source of one top-level def or class of `text`, decorators included."""
    node = next(node for node in ast.parse(text).body if getattr(node, "name", None) == name)
    first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
    return "\n".join(text.splitlines()[first - 1:node.end_lineno])


def hunk(task, path, prefix="a/", at="@@ -7,3 +7,3 @@"):
    """A unified diff of the solution's edit to `path`, a line of context on each side; its @@
    line numbers are made up (they are never trusted)."""
    (edit,) = [edit for edit in solution_edits(TASKS[task]) if edit["path"] == path]
    lines = original(task, path).split("\n")
    i = next(n for n, line in enumerate(lines) if edit["old"] in line)
    new_prefix = prefix.replace("a/", "b/")
    return (f"--- {prefix}{path}\n+++ {new_prefix}{path}\n{at}\n {lines[i - 1]}\n-{lines[i]}\n"
            f"+{lines[i].replace(edit['old'], edit['new'])}\n {lines[i + 1]}\n")


def py(code, label="python"):
    return f"```{label}\n{code}\n```"


PATHS, PRICING, PAGES = "path_rules", "discount_percent", "pagination_last_page"
SOURCES = definition(fixed(PATHS, "path_rules.py"), "python_sources")
PERCENT_OFF = definition(fixed(PRICING, "pricing.py"), "percent_off")
UNCHANGED_PERCENT_OFF = definition(original(PRICING, "pricing.py"), "percent_off")
PAGE_COUNT = definition(fixed(PAGES, "pagination.py"), "page_count")
BATCHES = definition(fixed(PAGES, "export.py"), "batches")
PROMOTION = definition(fixed("date_range_inclusive", "promotions.py"), "Promotion")  # a decorated class
REFUND = definition(fixed("refund_limit", "payments.py"), "refund")
INVOICE_TOTAL = definition(fixed("invoice_quantity", "invoice.py"), "invoice_total")
WINDOWS_TEST = 'def test_accepts_windows_separators():\n    assert python_sources(["src\\\\app.py"]) == ["src/app.py"]'
# The real Qwen2.5-Coder-1.5B answer (shape): the whole module, its docstring cut short, a test
# appended, then run_tests() in a block of its own. Applied as a whole file the test would stay.
QWEN = ("Here's the modified code for `path_rules.py`:\n\n" + py('"""Choose which changed files..."""\n\n\n'
        + SOURCES + "\n\n\n" + WINDOWS_TEST) + "\n\n" + py("run_tests()") + "\n")
# A fix that needs a new import: only a whole file can carry it.
WITH_RE = fixed(PATHS, "path_rules.py").replace('"""\n\n\n', '"""\nimport re\n\n\n', 1).replace(
    'path.replace("\\\\", "/").split("/")', 're.split(r"[\\\\/]", path)')
TEST_CODE = "from checkout import order_total\n\n\ndef test_spring():\n    assert order_total([('40', 1)], 'SPRING15')"
BROKEN = PERCENT_OFF.replace("):", ")", 1)  # the colon after the def line forgotten
# A second hunk whose removed line the model misremembers (the file says to_rate(percent)).
BAD_HUNK = ("@@ -25,2 +25,2 @@\n def with_tax(amount, percent):\n-    return round_cents(amount * (1 + percent))\n"
            "+    return round_cents(amount * (1 + to_rate(percent)))\n")
DEFINITIONS = [("definitions", "pricing.py")]

CORPUS = [
    # Definitions: each def or class replaces the file's of the same name; the rest is ignored.
    ("qwen15_module_then_test_then_run_tests", PATHS, QWEN, [("definitions", "path_rules.py")], True),
    ("no_name_at_all", PRICING, "The discount divides by 100 twice. Fixed:\n\n" + py(PERCENT_OFF), DEFINITIONS, True),
    ("no_language_tag", PRICING, py(PERCENT_OFF, label=""), DEFINITIONS, True),
    ("name_in_backticks_whole_module", "invoice_quantity", "Here is the fixed `invoice.py`:\n"
     + py(fixed("invoice_quantity", "invoice.py")), [("definitions", "invoice.py")], True),
    ("name_in_bold_decorated_class", "date_range_inclusive", "**promotions.py**\n" + py(PROMOTION),
     [("definitions", "promotions.py")], True),
    ("name_as_bare_path", "refund_limit", "payments.py\n" + py(REFUND), [("definitions", "payments.py")], True),
    ("name_in_first_line_comment", PAGES, py("# export.py\n" + BATCHES), [("definitions", "export.py")], False),
    ("name_in_the_info_string", PRICING, py(PERCENT_OFF, label="python pricing.py"), DEFINITIONS, True),
    ("name_with_an_imagined_folder", "invoice_quantity", "In `src/invoice.py`:\n" + py(INVOICE_TOTAL),
     [("definitions", "invoice.py")], True),
    ("windows_path_in_prose_is_no_file", PATHS, "Paths like `src\\app.py` keep their backslashes:\n"
     + py(SOURCES), [("definitions", "path_rules.py")], True),
    ("indented_in_a_list", PRICING, "1. **Fix `pricing.py`**:\n   ```python\n"
     + "".join(f"   {line}\n" for line in PERCENT_OFF.splitlines()) + "   ```\n", DEFINITIONS, True),
    ("test_block_first_then_module", PRICING, "Here's the updated `tests/test_checkout.py`:\n" + py(TEST_CODE)
     + "\nAnd `pricing.py`:\n" + py(PERCENT_OFF),
     [("error", "tests/test_checkout.py", "never edited"), ("definitions", "pricing.py")], True),
    ("two_blocks_two_files", PAGES, "`pagination.py`:\n" + py(PAGE_COUNT) + "\n`export.py`:\n" + py(BATCHES),
     [("definitions", "pagination.py"), ("definitions", "export.py")], True),
    ("a_first_try_then_a_better_one", PRICING, py(PERCENT_OFF.replace("(percent)", "(percent) / 10"))
     + "\nOops, no division at all:\n" + py(PERCENT_OFF), DEFINITIONS * 2, True),
    ("current_code_quoted_then_fixed", PRICING, "Current code:\n" + py(UNCHANGED_PERCENT_OFF) + "\nFixed:\n"
     + py(PERCENT_OFF), DEFINITIONS, True),
    # A whole file only when definitions cannot carry the change (a new import, a constant).
    ("whole_file_with_a_new_import", PATHS, "`path_rules.py`:\n" + py(WITH_RE),
     [("whole_file", "path_rules.py")], True),
    ("whole_file_unnamed_the_only_fit", PATHS, py(WITH_RE), [("whole_file", "path_rules.py")], True),
    ("new_import_but_test_code_too", PATHS, "`path_rules.py`:\n" + py(WITH_RE + "\n\n" + WINDOWS_TEST),
     [("definitions", "path_rules.py")], False),  # the import is lost: the tests will say NameError
    # One name in two editable files: only a block named for one applies.
    ("one_name_two_files_unnamed", TWO_PRICINGS, py(PERCENT_OFF), [("error", None, "say which file")], False),
    ("one_name_two_files_named", TWO_PRICINGS, "Fixed `pricing.py`:\n" + py(PERCENT_OFF), DEFINITIONS, False),
    # Unified diffs: line numbers are not trusted, a/ b/ prefixes are optional, fenced or bare.
    ("diff_with_prefixes", PRICING, py(hunk(PRICING, "pricing.py"), label="diff"), [("diff", "pricing.py")], True),
    ("diff_without_prefixes_wrong_numbers", "invoice_quantity", py(hunk(
        "invoice_quantity", "invoice.py", prefix="", at="@@ -90,4 +91,4 @@ def x"), "diff"),
     [("diff", "invoice.py")], True),
    ("bare_diff_in_prose", "date_range_inclusive", "Apply this:\n\n" + hunk("date_range_inclusive", "promotions.py")
     + "\nThat includes the last day.", [("diff", "promotions.py")], True),
    ("diff_of_two_files", PAGES, py(hunk(PAGES, "pagination.py") + hunk(PAGES, "export.py"), label="diff"),
     [("diff", "pagination.py"), ("diff", "export.py")], True),
    ("diff_without_headers_named_before", "refund_limit", "`payments.py`:\n"
     + py(hunk("refund_limit", "payments.py").split("\n", 2)[2], label="diff"), [("diff", "payments.py")], True),
    ("diff_after_the_same_fix_in_python", PRICING, py(PERCENT_OFF) + "\nAs a diff:\n"
     + py(hunk(PRICING, "pricing.py"), label="diff"), DEFINITIONS, True),
    ("hunk_that_does_not_match", PRICING, py(hunk(PRICING, "pricing.py") + BAD_HUNK, label="diff"),
     [("diff", "pricing.py"), ("error", "pricing.py", "hunk 2 for pricing.py does not match the file: "
                                                      "no line 'return round_cents(amount * (1 + percent))'")], True),
    ("diff_of_a_test_file", PATHS, py(hunk(PATHS, "path_rules.py").replace("path_rules.py", "tests/test_path_rules.py"),
                                      label="diff"), [("error", "tests/test_path_rules.py", "never edited")], False),
    # Refused, broken, unchanged: errors the model can act on.
    ("block_for_the_test_file", PATHS, "`tests/test_path_rules.py`:\n" + py(WINDOWS_TEST),
     [("error", "tests/test_path_rules.py", "tests are never edited")], False),
    ("block_for_a_readable_file", PRICING, "Fix `checkout.py`:\n" + py(definition(
        original(PRICING, "checkout.py"), "order_total")), [("error", "checkout.py", "not an editable file")], False),
    ("block_for_a_new_file", PRICING, "Add `money.py`:\n" + py("def cents(x):\n    return x"),
     [("error", "money.py", "not an editable file")], False),
    ("no_op", PRICING, "Here is the corrected function:\n" + py(UNCHANGED_PERCENT_OFF),
     [("error", "pricing.py", "no-op")], False),
    ("named_block_that_does_not_parse", PRICING, "`pricing.py`:\n" + py(BROKEN),
     [("error", "pricing.py", "(line 1: expected ':')")], False),
    ("unnamed_block_that_does_not_parse", PRICING, py(BROKEN), [("error", "pricing.py", "does not parse")], False),
    # Not edits: snippets that define nothing of the files, calls, other labels, prose.
    ("snippet_defining_nothing_of_the_file", PRICING, py("from pricing import percent_off\n"
     "print(percent_off(Decimal('40.00'), 15))\n\n\ndef example():\n    return 1"), [], False),
    ("python_block_of_tool_calls", PATHS, py("run_tests()"), [], False),
    ("a_method_alone_is_not_read", "date_range_inclusive", py(
        "    def is_running(self, day):\n        return self.first_day <= day <= self.last_day"), [], False),
    ("json_tool_code_bash_blocks", PATHS, py('{"name": "run_tests"}', "json") + py("run_tests()", "tool_code")
     + py(SOURCES, "bash"), [], False),
    ("test_output_in_an_unlabelled_block", PATHS, "tests/test_path_rules.py:\n" + py("FAILED test_x", ""), [], False),
    ("prose_only", PATHS, "I changed python_sources to normalise separators; all tests pass now.", [], False),
]


def shape(results):
    return [(r["form"], r["path"]) if "old" in r else ("error", r["path"], r["error"]) for r in results]


@pytest.mark.parametrize("task, reply, expected", [row[1:4] for row in CORPUS], ids=[row[0] for row in CORPUS])
def test_corpus(task, reply, expected):
    got = shape(find_text_edits(reply, *files_of(task)))
    assert [result[:2] for result in got] == [result[:2] for result in expected], got
    for result, wanted in zip(got, expected):
        assert wanted[0] != "error" or wanted[2] in result[2], result


def test_the_corpus_ids_are_unique_and_cover_thirty_replies():
    ids = [row[0] for row in CORPUS]
    assert len(set(ids)) == len(ids) >= 30


def applied(task, results):
    """The editable files after the edits, each applied as replace_text will: exactly once."""
    files = files_of(task)[0]
    for result in results:
        if "old" in result:
            assert files[result["path"]].count(result["old"]) == 1, result
            files[result["path"]] = files[result["path"]].replace(result["old"], result["new"])
    return files


RIGHT_FIXES = [row for row in CORPUS if row[4]]


@pytest.mark.parametrize("task, reply", [row[1:3] for row in RIGHT_FIXES], ids=[row[0] for row in RIGHT_FIXES])
def test_right_fixes_repair_the_task(task, reply, tmp_path):
    files = applied(task, find_text_edits(reply, *files_of(task)))
    if files == {path: fixed(task, path) for path in files}:
        return
    copy = shutil.copytree(TASKS[task].repo, tmp_path / "repo")
    for path, text in files.items():
        (copy / path).write_text(text, encoding="utf-8")
    command = [sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.devnull, "tests"]
    run = subprocess.run(command, cwd=copy, capture_output=True, text=True, timeout=120,
                         env={"PATH": os.environ.get("PATH", ""), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert run.returncode == 0, run.stdout[-2000:]


def test_a_file_an_earlier_edit_broke_is_replaced_only_by_a_whole_file():
    pricing = original(PRICING, "pricing.py")
    files = {"pricing.py": pricing.replace("def with_tax(amount, percent):", "def with_tax(amount, percent)")}
    (whole,) = find_text_edits("`pricing.py`:\n" + py(fixed(PRICING, "pricing.py")), files)
    assert whole["form"] == "whole_file" and whole["new"] == fixed(PRICING, "pricing.py")
    for reply in ("`pricing.py`:\n" + py(PERCENT_OFF), py(PERCENT_OFF)):
        (error,) = find_text_edits(reply, files)
        assert "pricing.py does not parse as Python now" in error["error"] and "whole file" in error["error"]


def test_results_are_plain_dicts_with_the_documented_keys():
    results = find_text_edits(QWEN + py(UNCHANGED_PERCENT_OFF) + py("def nothing(:"), *files_of(PATHS))
    assert [sorted(result) for result in results] == [["form", "new", "old", "path"]]
    errors = find_text_edits("`pricing.py`:\n" + py(UNCHANGED_PERCENT_OFF), *files_of(PRICING))
    assert errors[0]["unchanged"] is True  # a no-op says so: the loop counts such turns apart
    assert [sorted(result) for result in errors] == [["error", "form", "path", "unchanged"]]
    broken = find_text_edits("`pricing.py`:\n" + py("def percent_off(:"), *files_of(PRICING))
    assert [sorted(result) for result in broken] == [["error", "form", "path"]]


def test_a_reply_with_many_edits_is_cut_with_an_error_the_model_can_read():
    variants = [PERCENT_OFF.replace("to_rate(percent)", f"to_rate(percent) / {n}") for n in range(2, 80)]
    results = find_text_edits("".join(py(variant) for variant in variants), *files_of(PRICING))
    assert len(results) == 51 and "only the first 50 edits" in results[-1]["error"]


MANY_FIXES = "".join(py(PERCENT_OFF.replace("(percent)", f"(percent) * {n}")) for n in range(1500))


@pytest.mark.parametrize("reply", [
    "```" * 70_000,                                              # fences that never open
    "```python\n" + "x = 1\n" * 35_000,                          # a block that never closes
    "```python\n" + "(" * 200_000 + "\n```",                     # Python nested too deep
    "```python\n" + "[" * 100_000 + "\ndef percent_off(): pass\n```",
    "```python\n" + "def percent_off(a, b):\n    return a\n" * 2_500 + "```",  # one name, 2,500 times
    MANY_FIXES,                                                  # 1,500 blocks that each change the file
    "--- a/pricing.py\n+++ b/pricing.py\n@@\n" + " x\n" * 70_000,  # a hunk of context only
    "```diff\n--- a/pricing.py\n+++ b/pricing.py\n@@\n" + "-x\n" * 70_000 + "```",  # a hunk that never matches
    "--- a/pricing.py\n+++ b/pricing.py\n" + "@@\n-nothing\n+x\n" * 15_000,  # thousands of hunks
    "--- a/pricing.py\n+++ b/pricing.py\n" * 6_000,              # headers with no hunks
    "```diff\n" + "+x\n" * 70_000 + "```",                       # additions with nowhere to go
    "x." * 100_000 + "\n" + py(PERCENT_OFF),                     # a 200 KB "name" line
    "see a.py " * 22_000 + "\n" + py(PERCENT_OFF),               # thousands of file names on one line
    "+++ " * 50_000,                                             # header halves
    "```python\n# pricing.py" + " pricing.py" * 18_000 + "\n```",
])
def test_adversarial_200_kb_reply_returns_quickly(reply):
    """A wide bound: this catches a hang or quadratic work, it does not time speed."""
    started = time.perf_counter()
    assert isinstance(find_text_edits(reply, *files_of(PRICING)), list)
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize("reply", [
    "`pricing.py`:\n```python\ndef percent_off(a, b):\n    return '\ud800'\n```",  # a lone surrogate
    "`pricing.py`:\n```python\ndef percent_off(a, b):\x00\n```",                   # a NUL byte
    "```diff\n--- \n+++ \n@@\n-\n+\n```",                                          # empty names
    "```diff\n--- /dev/null\n+++ /dev/null\n```",
    "```python\n# \n```",
    "\x00```\ud800\n\x7f\u202e\ufeff",
])
def test_weird_text_never_raises(reply):
    assert isinstance(find_text_edits(reply, *files_of(PRICING)), list)


def test_weird_types_never_raise():
    assert find_text_edits(None, {"pricing.py": ""}) == []
    assert find_text_edits(py(PERCENT_OFF), None) == []
    assert find_text_edits(py(PERCENT_OFF), {"pricing.py": None, 3: "x"}, test_files=None) == []
    assert find_text_edits(py(PERCENT_OFF), {"pricing.py": ""}) == []  # an empty file defines nothing



def module(defs, broken=False):
    """An editable file of `defs` small functions (about 34 bytes each); `broken`: it does not parse."""
    return "".join(f"def f{n}(a):\n    return a + {n}\n\n" for n in range(defs)) + ("def broken(:\n" if broken else "")


def short_defs(defs, prefix):
    """A file of `defs` one-line functions (about 17 bytes each): many names in few bytes."""
    return "".join(f"def {prefix}{n}(): 0\n" for n in range(defs))


@pytest.mark.parametrize("files, block", [
    # Each block once re-scanned the whole broken file for its names: a 200 kB reply against a
    # 100 kB broken file took seconds.
    (lambda size: {"big.py": module(size, broken=True)}, "```python\ndef g{n}(a):\n    return a\n```\n"),
    # Each block that could replace small.py whole gathered every name of the other files first.
    (lambda size: {"small.py": "import os\n", **{f"big{k}.py": short_defs(2 * size, f"f{k}_") for k in range(3)}},
     "```python\nimport os, sys\ndef test_{n}(): 0\n```\n"),
], ids=["a broken file", "a large second file"])
def test_a_reply_of_many_blocks_takes_time_linear_in_its_size_and_the_files(files, block):
    """Four times the reply and the files take about four times as long, not sixteen: no block
    costs a pass over a file. Each block here is read and is no edit. A wide bound on the growth,
    not a speed: 8x plus half a second of slack for a busy machine, the best of three runs."""
    def seconds(size):
        reply, editable = "".join(block.format(n=n) for n in range(size)), files(size)
        started = time.perf_counter()
        assert find_text_edits(reply, editable) == []
        return time.perf_counter() - started

    small = min(seconds(800) for _ in range(3))
    bound = 8 * small + 0.5
    large = [seconds(3_200)]
    while large[-1] > bound and len(large) < 3:
        large.append(seconds(3_200))
    assert min(large) <= bound, f"4x the input took {min(large):.2f} s against {small:.2f} s"
