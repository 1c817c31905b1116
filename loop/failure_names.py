"""Which test a part of pytest's output is about: its node id, as the model can use it.

pytest titles a test's details with a short form ("TestA.test_b[1]", "ERROR at setup of
test_x") and names the node id ("tests/t.py::TestA::test_b[1]") only in its short summary,
which a cut output may have lost. failure_digest.py asks these functions for the full name.

What this file deliberately is not: a parser of the output (failure_digest.py reads it).
"""
import re


def label(section, names):
    """"FAILED tests/t.py::test_x", "ERROR at setup of tests/t.py::test_x", "ERROR collecting t.py"."""
    title = section["title"]
    if title is None:
        return section["label"]
    if title.startswith("ERROR "):
        name = name_in(title)
        return title[: len(title) - len(name)] + names.get(name, name)
    # No summary line names it (cut off): a failure's traceback starts in the test's own file.
    path = section["frames"][0] if section["frames"] else ""
    guess = f"{path}::{respell(title, '.', '::')}" if path.startswith("tests/") else title
    return f"FAILED {names.get(title, guess)}"


def name_in(title):
    """The test a title names: "ERROR at setup of test_x" -> "test_x", "ERROR collecting t.py" -> "t.py"."""
    match = re.match(r"ERROR (?:collecting |at \w+ of )(.*)", title or "")
    return match.group(1) if match else title


def header_form(nodeid):
    """pytest's section title for a node id: "tests/t.py::TestA::test_b[1]" -> "TestA.test_b[1]"."""
    return respell(nodeid.split("::", 1)[-1], "::", ".")


def respell(name, old, new):
    """`name` with `old` replaced by `new`, except inside the test's parameters ("[1.5]")."""
    head, bracket, params = name.partition("[")
    return head.replace(old, new) + bracket + params
