"""The rooms form layers: the root's entry points import the folders, never the other way round;
loop/ needs nothing of runs/, evaluation/ or testing/; product code never imports testing/; and
no two modules import each other, however indirectly."""
import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("loop", "workspace", "runs", "evaluation", "testing", "tests")
ENTRY_POINTS = {"record_run", "evaluate", "improve", "fix", "bench"}
# The card's parts at the root; replay.py is both a CLI and the home of ReplayModel and replay().
CARD_MODULES = {"agent_loop", "local_model", "openai_model", "repo_tools", "replay"}


@functools.cache  # read once: every test below asks the same question of the same files
def modules():
    """{dotted name: set of project modules it imports}, for every project module."""
    found = {}
    for path in sorted(ROOT.glob("*.py")) + sorted(p for f in FOLDERS for p in (ROOT / f).glob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found[name] = {_project(node, name) for node in ast.walk(tree)
                       if isinstance(node, (ast.Import, ast.ImportFrom))} - {None}
    return found


def _project(node, importer):
    """The project module an import statement names, or None (stdlib, SDKs)."""
    target = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
    if isinstance(node, ast.ImportFrom) and target in FOLDERS:  # `from loop import turn_policy`
        target = f"{target}.{node.names[0].name}"
    top = (target or "").split(".")[0]
    return target if top in FOLDERS or top in ENTRY_POINTS | CARD_MODULES | {"conftest"} else None


def test_loop_imports_nothing_of_runs_evaluation_or_testing():
    for name, imported in modules().items():
        if name.startswith("loop."):
            assert not {i for i in imported if i.split(".")[0] in ("runs", "evaluation", "testing")}, name


def test_product_code_never_imports_the_test_doubles():
    for name, imported in modules().items():
        if name.split(".")[0] not in ("testing", "tests", "conftest", "test_loop", "test_recorded"):
            assert not {i for i in imported if i.startswith("testing")}, name


def test_no_folder_imports_an_entry_point():
    for name, imported in modules().items():
        if "." in name and not name.startswith("tests."):
            assert not imported & ENTRY_POINTS, f"{name} imports {imported & ENTRY_POINTS}"


def test_no_module_imports_itself_through_others():
    graph = modules()
    state = {}

    def visit(name, path):
        state[name] = "open"
        for nxt in sorted(graph.get(name, ())):
            if state.get(nxt) == "open":
                raise AssertionError(f"an import circle: {' -> '.join([*path, nxt])}")
            if nxt in graph and nxt not in state:
                visit(nxt, [*path, nxt])
        state[name] = "done"
    for name in graph:
        if name not in state:
            visit(name, [name])
