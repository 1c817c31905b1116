"""The preloaded context: the failure digest of real pytest runs, and the messages built from it.

Every pytest output here is real: a task's repository (or a broken variant of it) copied to a
temporary folder and run through RepoTools.run_tests, once per variant and worker.
"""
import functools
import re
import tempfile

import pytest

from loop.context import (
    FILES_BUDGET,
    TIMED_OUT,
    UNCHANGED_NOTE,
    compact_output,
    correction_message,
    failure_digest,
    preload_message,
    unchanged_note,
)
from loop.failure_digest import DIGEST_CHARS, E_LINES, LINE_CHARS, LISTED_TESTS
from repo_tools import RepoTools
from workspace.task_catalog import fresh_copy, load_task, solution_edits

DISCOUNT = "discount_percent"
(FIX,) = solution_edits(load_task(DISCOUNT))
DEEP = """def a(n):
    if n == 0:
        raise KeyError('deep')
    return a(n - 1)


class TestDeep:
    def test_deep(self):
        a(6)
"""
FIXTURE = """import pytest


@pytest.fixture
def broken():
    raise RuntimeError('setup broke')


def test_uses(broken):
    pass
"""
PRINTS = """def test_prints():
    print('E   printed, not an error')
    print('noise.py:1: in nowhere')
    assert 1 == 2
"""
FLOOD = """import pytest


@pytest.mark.parametrize('n', range(60))
def test_n(n):
    assert n < 0, 'value ' + str(n)
"""
# Broken (and one repaired) discount_percent: path -> the file's new text, or (old, new) in it.
VARIANTS = {
    "syntax_error": {"pricing.py": ("percent_off(amount, percent):", "percent_off(amount, percent)")},
    "import_error": {"pricing.py": ("def with_tax", "def with_taxes")},
    "raises_inside": {"pricing.py": ("to_rate(percent) / 100", "to_rate(percent) / undefined_name")},
    "mixed": {"tests/test_a_deep.py": DEEP, "tests/test_fixture.py": FIXTURE, "tests/test_b_prints.py": PRINTS},
    "flood": {"tests/test_many.py": FLOOD},
    "conftest_error": {"tests/conftest.py": "import nothere\n"},
    "hangs": {"pricing.py": ("    discount = amount", "    __import__('time').sleep(60)\n    discount = amount")},
    "repaired": {FIX["path"]: (FIX["old"], FIX["new"])},
}
TIMEOUTS = {"hangs": 1.0}  # seconds for run_tests; 15 otherwise


@functools.cache
def real_run(variant):
    """The run_tests result of a task (by name), or of one of VARIANTS of discount_percent."""
    task = load_task(DISCOUNT if variant in VARIANTS else variant)
    with tempfile.TemporaryDirectory() as folder:
        copy = fresh_copy(task, folder)
        for path, change in VARIANTS.get(variant, {}).items():
            text = change if isinstance(change, str) else (copy / path).read_text().replace(*change)
            (copy / path).write_text(text)
        return RepoTools(copy, task=task, test_timeout=TIMEOUTS.get(variant, 15.0)).run_tests()


def digest_of(variant, **options):
    return failure_digest(real_run(variant)["output"], **options)


def locations(block):
    return [line for line in block.splitlines() if re.match(r"\S+:\d+:", line)]


def reader(task):
    """read(path) over the task's pristine files, refusing what it does not allow, as read_file does."""
    def read(path):
        if path not in task.readable:
            raise ValueError(f"{path!r} is not allowed here")
        return (task.repo / path).read_text()
    return read


# --- the digest of real runs ----------------------------------------------------------------

DISCOUNT_DIGEST = """\
FAILED tests/test_checkout.py::test_coupon_takes_its_percentage_off
>       assert order_total(BIG_CART, coupon="SPRING15") == Decimal("34.00")
E       AssertionError: assert Decimal('39.94') == Decimal('34.00')
E        +  where Decimal('39.94') = order_total([('10.00', 4)], coupon='SPRING15')
tests/test_checkout.py:24: AssertionError

FAILED tests/test_checkout.py::test_coupon_code_ignores_case_and_spaces
>       assert order_total(CART, coupon=" welcome10 ") == Decimal("27.00")
E       AssertionError: assert Decimal('29.97') == Decimal('27.00')
E        +  where Decimal('29.97') = order_total([('12.00', 2), ('6.00', 1)], coupon=' welcome10 ')
tests/test_checkout.py:28: AssertionError

FAILED tests/test_checkout.py::test_tax_applies_after_the_discount
>       assert order_total(BIG_CART, coupon="STAFF25", tax_percent=20) == Decimal("36.00")
E       AssertionError: assert Decimal('47.88') == Decimal('36.00')
E        +  where Decimal('47.88') = order_total([('10.00', 4)], coupon='STAFF25', tax_percent=20)
tests/test_checkout.py:32: AssertionError
3 failed, 4 passed"""


def test_the_digest_of_a_task_keeps_names_assertions_locations_and_the_count_only():
    output = real_run(DISCOUNT)["output"]
    assert "...FFF." in output and "= FAILURES =" in output and "def test_" in output  # what goes
    assert failure_digest(output) == DISCOUNT_DIGEST


def test_a_syntax_error_keeps_the_error_and_our_frames_not_pytests():
    digest = digest_of("syntax_error")
    assert digest.startswith("ERROR collecting tests/test_checkout.py\n")
    assert 'E     File "pricing.py", line 17\nE       def percent_off(amount, percent)\n' in digest
    assert "E   SyntaxError: expected ':'" in digest
    assert "checkout.py:4: in <module>\n    from pricing import percent_off, round_cents, with_tax" in digest
    assert "<venv>" not in digest and "<frozen" not in digest and "<python>" not in digest
    assert re.search(r"\(\d+ traceback frames left out\)\n1 error$", digest)


def test_an_import_error_keeps_what_could_not_be_imported():
    digest = digest_of("import_error")
    assert "ImportError while importing test module 'tests/test_checkout.py'." in digest
    assert "E   ImportError: cannot import name 'with_tax' from 'pricing' (pricing.py)" in digest
    assert digest.endswith("\n1 error")


def test_an_exception_inside_the_code_keeps_the_test_line_the_call_and_the_raise():
    first = digest_of("raises_inside").split("\n\n")[0]
    assert locations(first) == ["tests/test_checkout.py:24:", "checkout.py:25: in order_total",
                                "pricing.py:19: NameError"]
    assert ">       discount = amount * to_rate(percent) / undefined_name" in first
    assert "E       NameError: name 'undefined_name' is not defined" in first
    assert "amount = Decimal(" not in first and "^^^" not in first  # locals and carets go


def test_deep_tracebacks_keep_at_most_max_frames_the_first_and_the_last():
    deep = next(block for block in digest_of("mixed").split("\n\n") if "TestDeep" in block)
    assert deep.startswith("FAILED tests/test_a_deep.py::TestDeep::test_deep\n")
    assert locations(deep) == ["tests/test_a_deep.py:9:", "tests/test_a_deep.py:4: in a",
                               "tests/test_a_deep.py:3: KeyError"]
    assert "(5 traceback frames left out)" in deep and "E           KeyError: 'deep'" in deep
    one = next(block for block in digest_of("mixed", max_frames=1).split("\n\n") if "TestDeep" in block)
    assert locations(one) == ["tests/test_a_deep.py:3: KeyError"]
    none = next(block for block in digest_of("mixed", max_frames=0).split("\n\n") if "TestDeep" in block)
    assert locations(none) == [] and "E           KeyError: 'deep'" in none


def test_setup_errors_printed_output_and_tests_beyond_the_detailed_ones():
    digest = digest_of("mixed")
    assert "ERROR at setup of tests/test_fixture.py::test_uses\n" in digest
    assert "E       RuntimeError: setup broke" in digest
    prints = next(block for block in digest.split("\n\n") if "test_prints" in block)
    assert "printed, not an error" not in digest and "noise.py" not in digest
    assert prints.endswith("(what the test printed left out)")
    # Six tests fail: five in detail, the sixth by pytest's summary line.
    labels = [line for line in digest.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    assert len(labels) == 6
    assert labels[-1].startswith("FAILED tests/test_checkout.py::test_tax_applies_after_the_discount - ")
    assert digest.endswith("\n" + labels[-1] + "\n5 failed, 4 passed, 1 error")


def test_output_cut_in_the_middle_is_said_and_the_tail_is_listed_within_bounds():
    output = real_run("flood")["output"]
    cut = re.search(r"\[\.\.\. (\d+) characters cut \.\.\.\]", output).group(1)
    digest = failure_digest(output)
    assert f"[... {cut} characters of pytest's output cut here ...]" in digest
    listed = [line for line in digest.splitlines() if line.startswith("FAILED tests/test_many.py::test_n[")]
    assert len(listed) == LISTED_TESTS and all(" - AssertionError: value " in line for line in listed)
    assert re.search(r"\n\(\d+ more failing tests left out\)\n63 failed, 4 passed$", digest)
    assert digest.startswith("FAILED tests/test_checkout.py::test_coupon_takes_its_percentage_off\n")


def test_a_conftest_that_cannot_import_is_kept_though_no_test_ran():
    digest = digest_of("conftest_error")
    assert digest == ("ImportError while loading conftest 'tests/conftest.py'.\ntests/conftest.py:1: in <module>\n"
                      "    import nothere\nE   ModuleNotFoundError: No module named 'nothere'")


def test_a_run_that_timed_out_says_so():
    result = real_run("hangs")
    assert result["timed_out"]
    compact = compact_output(result)
    assert compact["output"] == f"{TIMED_OUT}\n(pytest printed no failure details)"
    assert {k: v for k, v in compact.items() if k != "output"} == {k: v for k, v in result.items() if k != "output"}


def test_a_passing_run_is_one_line_and_every_other_field_stays():
    result = real_run("repaired")
    compact = compact_output(result)
    assert compact == {**result, "output": "all 7 tests passed"}
    assert failure_digest(result["output"]) == "7 passed"


def test_compact_output_of_a_failing_run_is_its_digest():
    result = real_run(DISCOUNT)
    assert compact_output(result) == {**result, "output": DISCOUNT_DIGEST}


# --- the digest of odd and huge input --------------------------------------------------------

@pytest.mark.parametrize("output", [None, 42, b"bytes", "", "\n\n\n", "E", ">", "____ x ____", "x.py:1: in f",
                                    "[... 5 characters cut ...]", "\x00\ud800\u202e" * 100, "FAILED",
                                    "= FAILURES =\n_____ t _____\nE"])
def test_the_digest_never_raises_and_always_says_something(output):
    digest = failure_digest(output)
    assert isinstance(digest, str) and digest


@pytest.mark.parametrize("max_frames", [-1, None, "3", 2.5])
def test_an_odd_max_frames_means_the_default(max_frames):
    assert failure_digest(real_run(DISCOUNT)["output"], max_frames=max_frames) == DISCOUNT_DIGEST


def test_a_session_header_and_progress_lines_are_dropped():
    output = ("============================= test session starts ==============================\n"
              "platform linux -- Python 3.11.2, pytest-8.3.3, pluggy-1.5.0\nrootdir: .\ncollected 7 items\n\n"
              + real_run(DISCOUNT)["output"])
    assert failure_digest(output) == DISCOUNT_DIGEST


def test_huge_outputs_give_a_bounded_digest_that_says_what_it_left_out():
    section = "_____ test_{n} _____\n\n>       assert f()\n" + "E       line {n} " + "x" * 500 + "\n"
    sections = "".join(section.replace("{n}", str(n)) + ("E   more " + "z" * 200 + "\n") * 50
                       + f"t.py:{n}: AssertionError\n" for n in range(300))
    output = "=== FAILURES ===\n" + sections + "=== short test summary info ===\n" + "".join(
        f"FAILED tests/t.py::test_{n} - AssertionError\n" for n in range(300)) + "300 failed\n"
    digest = failure_digest(output)
    details, listed = digest.rsplit("\n\n", 1)
    assert len(details) <= DIGEST_CHARS and len(listed) <= (LISTED_TESTS + 2) * (LINE_CHARS + 30)
    assert f"({51 - E_LINES} E lines left out)" in details  # the first test, whole
    assert details.count("\nFAILED ") == 0 and listed.startswith("FAILED tests/t.py::test_1 - AssertionError\n")
    assert listed.endswith("\nFAILED tests/t.py::test_10 - AssertionError\n"
                           "(289 more failing tests left out)\n300 failed")
    assert all(len(line) <= LINE_CHARS + 30 for line in digest.splitlines())
    giant = "_____ test_big _____\n" + ("E   " + "w" * 100 + "\n") * 10 + "t.py:1: AssertionError\n" * 1_000
    capped = failure_digest(giant, max_frames=1_000)  # one test, more than the room: cut, and said
    assert len(capped) <= DIGEST_CHARS + 60 and capped.endswith("more characters of this test left out ...]")
    one_line = failure_digest("E " + "y" * 2_000_000)  # one enormous line: read only at its start
    assert one_line.endswith("... (1999762 more characters)") and len(one_line) < 400


# --- compact_output -----------------------------------------------------------------------------

@pytest.mark.parametrize("result", [{}, {"output": None}, {"exit_code": 1}, {"exit_code": 0, "passed": "7"},
                                    {"exit_code": 0, "timed_out": True, "output": "..."}])
def test_compact_output_of_an_incomplete_result_keeps_its_fields_and_gains_an_output(result):
    compact = compact_output(result)
    assert isinstance(compact["output"], str) and compact["output"]
    assert {k: v for k, v in compact.items() if k != "output"} == {k: v for k, v in result.items() if k != "output"}


@pytest.mark.parametrize("result", [None, "output", 3, ["x"]])
def test_compact_output_returns_anything_but_a_dict_unchanged(result):
    assert compact_output(result) is result


# --- the first message under preload -------------------------------------------------------------

def test_the_preload_message_holds_the_prompt_the_failures_the_files_editable_first_and_how_to_answer():
    task = load_task(DISCOUNT)
    message = preload_message(task, real_run(DISCOUNT), reader(task))
    assert message.startswith(task.prompt() + "\n\nThe tests fail now:\n" + DISCOUNT_DIGEST + "\n\n")
    starts = [message.index(f"\n{path}\n```python\n{(task.repo / path).read_text().rstrip()}\n```\n")
              for path in ("pricing.py", "checkout.py", "tests/test_checkout.py")]
    assert starts == sorted(starts)  # the editable file first, then the others in the task's order
    assert message.endswith("\n\nTo fix it, call replace_text, or answer with the corrected code of pricing.py in "
                            "one ```python block, with pricing.py on the line before the block.")
    assert "Not included" not in message and len(message) < 5_000


def test_a_file_that_does_not_fit_the_budget_is_named_and_the_next_may_still_fit():
    task = load_task(DISCOUNT)
    sizes = {path: len((task.repo / path).read_text()) for path in task.readable}
    budget = sizes["pricing.py"] + sizes["tests/test_checkout.py"] + 60  # not checkout.py too
    message = preload_message(task, real_run(DISCOUNT), reader(task), budget=budget)
    assert "\npricing.py\n```python\n" in message and "\ntests/test_checkout.py\n```python\n" in message
    assert "\ncheckout.py\n```" not in message
    assert "Not included (too long for this message), read it with read_file: checkout.py\n" in message
    nothing = preload_message(task, real_run(DISCOUNT), reader(task), budget=0)
    assert "```python\n" not in nothing.split("To fix it")[0]
    assert "read it with read_file: pricing.py, checkout.py, tests/test_checkout.py" in nothing


def test_the_files_never_exceed_the_budget():
    task = load_task("pagination_last_page")
    for budget in (0, 500, 1_500, 3_000, FILES_BUDGET):
        message = preload_message(task, None, reader(task), budget=budget)
        blocks = re.findall(r"\n([\w/]+\.py\n```python\n.*?\n```)(?=\n|$)", message, re.S)
        assert sum(len(block) for block in blocks) <= budget


def test_several_editable_files_come_first_in_their_order_and_the_answer_names_them():
    task = load_task("pagination_last_page")
    message = preload_message(task, None, reader(task))
    order = [path for path in re.findall(r"^([\w/]+\.py)\n```python$", message, re.M)]
    assert order == ["pagination.py", "export.py", "tests/test_pagination.py", "tests/test_export.py"]
    assert "The tests fail" not in message
    assert "each file you change (pagination.py, export.py) in its own ```python block" in message


def test_unreadable_files_are_named_not_a_crash():
    task = load_task(DISCOUNT)

    def read(path):
        if path == "checkout.py":
            raise OSError("gone")
        if path == "pricing.py":
            raise ValueError("refused")
        return {"path": path, "text": "x = 1\n"} if path.startswith("tests/") else None
    message = preload_message(task, {"exit_code": 1}, read)
    assert "Could not be read: pricing.py (ValueError: refused); checkout.py (OSError: gone)" in message
    assert "\ntests/test_checkout.py\n```python\nx = 1\n```" in message


def test_a_file_holding_a_fence_gets_a_longer_one():
    task = load_task(DISCOUNT)
    text = 'DOC = """\n```python\nprint(1)\n```\n"""\n'
    message = preload_message(task, None, lambda path: text)
    assert f"pricing.py\n````python\n{text}````" in message


@pytest.mark.parametrize("task", ["Fix the tests.", None, object()])
def test_a_plain_prompt_task_gets_no_files_and_no_crash(task):
    message = preload_message(task, {}, lambda path: "")
    assert message.endswith("with the file's name on the line before the block.")
    assert "(pytest printed no failure details)" in message


def test_without_code_blocks_the_model_is_told_to_use_replace_text_only():
    task = load_task(DISCOUNT)
    message = preload_message(task, real_run(DISCOUNT), reader(task), blocks=False)
    assert message.endswith("\n\nTo fix it, call replace_text with text copied exactly from the file.")


# --- the correction after failing tests, and the unchanged note ------------------------------------

def test_a_correction_carries_the_failures_and_the_file_as_the_model_left_it(tmp_path):
    task = load_task(DISCOUNT)
    tools = RepoTools(fresh_copy(task, tmp_path), task=task)
    tools.replace_text("to_rate(percent) / 100", "to_rate(percent) / 10")  # a wrong fix
    result = tools.run_tests()
    message = correction_message(result, ["pricing.py"], tools.read_file)
    assert message.startswith("The tests still fail:\n"
                              "FAILED tests/test_checkout.py::test_coupon_takes_its_percentage_off\n")
    assert "E       AssertionError: assert Decimal('39.40') == Decimal('34.00')" in message
    current = (tools.root / "pricing.py").read_text()
    assert "to_rate(percent) / 10\n" in current
    shown = f"\n\nThe current text of the file you changed:\n\npricing.py\n```python\n{current.rstrip()}\n```\n\n"
    assert shown in message
    assert message.endswith("the corrected code of pricing.py in one ```python block, "
                            "with pricing.py on the line before the block.")
    assert len(message) < len(result["output"]) + len(current)


@pytest.mark.parametrize("changed", ["pricing.py", ["pricing.py", "pricing.py", 3, None], {"pricing.py"}])
@pytest.mark.parametrize("result", [None, {}, {"exit_code": 0}, {"output": "E boom"}])
def test_a_correction_of_odd_input_never_raises(result, changed):
    message = correction_message(result, changed, lambda path: "x = 1\n")
    assert message.count("pricing.py\n```python\nx = 1\n```") == 1 and "To fix it" in message


@pytest.mark.parametrize("changed", [None, (), 3, [b"pricing.py"]])
def test_a_correction_without_changed_files_still_says_how_to_answer(changed):
    message = correction_message({"exit_code": 1, "output": "E boom\n1 failed"}, changed, lambda path: 1 / 0)
    assert message.startswith("The tests still fail:\nE boom\n1 failed\n\nTo fix it, call replace_text")


def test_the_unchanged_note_is_a_small_read_file_answer():
    assert unchanged_note("pricing.py") == {"path": "pricing.py", "unchanged": True, "note": UNCHANGED_NOTE}
    assert UNCHANGED_NOTE == "unchanged since you last saw it"
