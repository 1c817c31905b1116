"""What fix.py decides from a user's repository before any model sees it, read from the code and
never run: which files are test code (what the tests collect and import, not names alone), which
are packaging, which code a failing test calls, and the order the files are shown in."""
import pytest

from localizing.failing_uses import used_by
from fixing.sorted_files import sorted_files
from fixing.task import build_task, choose_files
from loop.context import preload_paths
from tests.user_repos import make_project
from workspace.project_names import own_packages
from workspace.python_imports import Imports
from workspace.user_tests import find_test_code, is_tooling

PACKAGED = {
    "pyproject.toml": '[project]\nname = "calc"\n',
    "src/calc/__init__.py": "from calc.ops import add\n",
    "src/calc/ops.py": "from calc.shared import ZERO\nfrom vendored.numbers import one\n\n\ndef add(a, b):\n    return a + b\n",
    "src/calc/shared.py": "ZERO = 0\n",
    "src/calc/_testing.py": "CASES = [(2, 2, 4)]\n",
    "vendored/numbers.py": "from vendored.base import ONE\n\n\ndef one():\n    return ONE\n",
    "vendored/base.py": "ONE = 1\n",
    "testing/__init__.py": "", "testing/expected.py": "from testing.values import FOUR\nSUM = FOUR\n",
    "testing/values.py": "FOUR = 4\n",
    "tests/test_ops.py": ("from calc import shared\nfrom calc._testing import CASES\nfrom calc.ops import add\n"
                          "from vendored.numbers import one\n\n\ndef test_add():\n"
                          "    from testing.expected import SUM\n    assert add(2, 2) == SUM\n"),
}


def files_of(spec):
    return sorted(spec)


def test_test_code_is_what_the_tests_collect_and_import_and_the_product_does_not(tmp_path):
    tree = make_project(tmp_path / "calc", PACKAGED, git=False)
    tests = find_test_code(tree, files_of(PACKAGED), {"tests/test_ops.py"}, "calc")
    # Outside the project's package, imported by the tests alone (even inside a test, and through
    # each other); and inside it, a module named for testing.
    assert tests == {"tests/test_ops.py", "testing/__init__.py", "testing/expected.py", "testing/values.py",
                     "src/calc/_testing.py"}
    # The package under test is imported by its tests alone and stays code; so does what the code
    # imports, however far (vendored/base.py only through vendored/numbers.py).


def test_without_packaging_names_decide_among_what_only_the_tests_import(tmp_path):
    files = {"app.py": "def run():\n    return 1\n", "testing/expected.py": "ONE = 1\n",
             "check_app.py": "from app import run\nfrom testing.expected import ONE\n"}
    tree = make_project(tmp_path / "project-x", files, git=False)
    assert find_test_code(tree, sorted(files), {"check_app.py"}, "project-x") == {"check_app.py", "testing/expected.py"}


@pytest.mark.parametrize("files, folder, expected", [
    ({"setup.py": "setup(name='inflection', packages=['inflection'])\n", "inflection/__init__.py": ""},
     "inflection-0.5.1", {"inflection"}),
    ({"pyproject.toml": '[project]\nname = "python-slugify"\n\n[tool.setuptools]\npackages = ["slugify"]\n',
      "slugify/__init__.py": "", "tools/check.py": ""}, "x", {"slugify"}),
    ({"pyproject.toml": '[project]\nname = "more-itertools"\n', "more_itertools/more.py": ""}, "x", {"more_itertools"}),
    ({"setup.cfg": "[metadata]\nname = semver\n", "src/semver/__init__.py": ""}, "x", {"semver"}),
    ({"pyproject.toml": "[broken", "lib.py": ""}, "somewhere", None),
])
def test_the_projects_own_packages_come_from_its_packaging_or_its_folder(tmp_path, files, folder, expected):
    tree = make_project(tmp_path / folder, files, git=False)
    assert own_packages(tree, sorted(files), folder) == expected


@pytest.mark.parametrize("path, tooling", [
    ("setup.py", True), ("docs/conf.py", True), ("doc/source/conf.py", True), ("noxfile.py", True),
    ("src/app/conf.py", False), ("src/app/setup_wizard.py", False), ("tasks.py", False)])
def test_packaging_and_tool_configuration(path, tooling):
    assert is_tooling(path) is tooling


USES = {
    "words/__init__.py": "from words.suffixes import ordinal\nfrom words import plural\n",
    "words/suffixes.py": "def ordinal(n):\n    return 'th'\n",
    "words/plural.py": "def plural(w):\n    return w + 's'\n",
    "words/extra.py": "X = 1\n",
    "tests/test_words.py": ("import functools\nimport words\nfrom words.extra import X\nfrom words import plural as p\n\n"
                            "many = functools.partial(p.plural)\n\n\nclass TestWords:\n"
                            "    def test_both(self, value):\n        assert many('a') == words.ordinal(value)\n"),
}


def test_a_failing_test_uses_the_code_it_names_in_order_through_re_exports(tmp_path):
    tree = make_project(tmp_path / "words", USES, git=False)
    imports = Imports(tree, sorted(USES))
    assert used_by(imports, "tests/test_words.py::TestWords::test_both[3-rd]") == [
        "words/plural.py", "words/suffixes.py", "words/__init__.py", "words/extra.py"]
    assert used_by(imports, "tests/test_words.py") == ["words/__init__.py", "words/extra.py", "words/plural.py"]


def test_readable_globs_are_shown_first_and_tooling_last(tmp_path):
    files = {"setup.py": "setup()\n", "a/core.py": "X = 1\n", "a/big.py": "Y = 2\n", "NOTES.md": "the cause\n",
             "tests/test_a.py": "from a.core import X\n"}
    tree = make_project(tmp_path / "a", files, git=False)
    found = sorted_files(tree, sorted(files), {"tests/test_a.py"}, used=["a/core.py"], failing=["tests/test_a.py"],
                         globs=["NOTES.md"])
    readable, editable, *_ = choose_files(found, readable_globs=["NOTES.md"])
    assert readable == ["NOTES.md", "a/core.py", "tests/test_a.py", "a/big.py", "setup.py"]
    assert editable == ["a/core.py", "a/big.py"]
    task = build_task("a", "t", tree, {"tests/test_a.py"}, None, readable=readable, editable=editable)
    assert preload_paths(task) == readable  # not editable first: the readable order is the one to show
