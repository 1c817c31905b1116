"""The rooms form layers, and every room's door names what is in it.

A module imports only modules of its own layer or of a lower one (LAYERS): nothing runs back
up. No entry point imports another entry point, no folder imports an entry point, product code
never imports testing/, and no two modules import each other, however indirectly. Each folder's
door (its `__init__.py`, a docstring only) names every .py and .json file in the folder, and
every file it names exists. So does every file that prose names: a module's docstring, README.md,
TUTORIAL.md."""
import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = tuple(sorted(p.parent.name for p in ROOT.glob("*/__init__.py")))
ENTRY_POINTS = {"record_run", "evaluate", "improve", "fix", "bench"}
# The card's parts at the root; replay.py is both a CLI and the home of ReplayModel and replay().
CARD_MODULES = {"agent_loop", "local_model", "openai_model", "repo_tools", "replay"}
TESTS = {"tests", "testing", "conftest", "test_loop", "test_recorded"}
# Lowest first: the rooms each layer holds (a folder, or a module at the root).
LAYERS = (
    {"workspace"},                                # a task's repository: copies, pytest, the verdict
    {"localizing"},                               # the likely faulty definitions, from the tests
    {"loop"},                                     # the loop's parts
    {"agent_loop", "repo_tools", "settings"},     # the loop, its tools, its named configurations
    {"models"},                                   # what the adapters share; the model choice; scripted models
    {"local_model", "openai_model"},              # the adapters
    {"command_line"},                             # what every command line shares: flags, terminal, stops
    {"runs"},                                     # the recording format
    {"attempt"},                                  # one attempt: a run or a search, labelled once
    {"evaluation", "fixing"},                     # evaluate.py's machinery; fix.py's wing
    {"replay"},                                   # replay(): any recording, a fix.py one too
    {"outer_loop"},                               # improve.py's wing, which replays too
    ENTRY_POINTS,
    TESTS,
)
DOOR_NAME = re.compile(r"[\w./-]+\.(?:py|json)\b")


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


def layer(name):
    room = name.split(".")[0]
    return next(n for n, rooms in enumerate(LAYERS) if room in rooms)


def test_every_room_has_a_layer():
    rooms = {name.split(".")[0] for name in modules()}
    assert rooms == set().union(*LAYERS), f"rooms with no layer: {rooms - set().union(*LAYERS)}"


def test_no_import_runs_back_up():
    for name, imported in modules().items():
        higher = sorted(i for i in imported if layer(i) > layer(name))
        assert not higher, f"{name} imports {higher}, a higher layer's"


def test_no_entry_point_imports_another_and_no_folder_imports_one():
    for name, imported in modules().items():
        if name.split(".")[0] not in TESTS:
            assert not imported & ENTRY_POINTS, f"{name} imports {imported & ENTRY_POINTS}"


def test_loop_imports_nothing_of_runs_evaluation_or_testing():
    for name, imported in modules().items():
        if name.startswith("loop."):
            assert not {i for i in imported if i.split(".")[0] in ("runs", "evaluation", "testing")}, name


def test_product_code_never_imports_the_test_doubles():
    for name, imported in modules().items():
        if name.split(".")[0] not in TESTS:
            assert not {i for i in imported if i.startswith("testing")}, name


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


def door_problems(folder):
    """What a folder's door leaves out, or names that is not there: a bare name is the folder's
    or the root's, a path from a folder of the project is read from the root, and any other
    path (OUT/summary.json, a file a run writes) is not the project's to check."""
    door = (folder / "__init__.py").read_text(encoding="utf-8")
    tree = ast.parse(door)
    problems = [] if len(tree.body) == 1 and ast.get_docstring(tree) else ["the door is not a docstring alone"]
    files = sorted(p.name for p in folder.iterdir() if p.suffix in (".py", ".json") and p.name != "__init__.py")
    named = set(DOOR_NAME.findall(ast.get_docstring(tree) or ""))
    problems += [f"{name} is not named" for name in files if name not in named]
    ours = [name for name in sorted(named) if "/" not in name or (ROOT / name.split("/")[0]).is_dir()]
    problems += [f"{name} is named, but is not there" for name in ours
                 if not (folder / name).is_file() and not (ROOT / name).is_file()]
    return problems


def test_every_door_names_every_file_of_its_folder_and_nothing_else():
    assert len(FOLDERS) >= 11  # loop, models, workspace, runs, attempt, settings, evaluation, ...
    problems = {name: door_problems(ROOT / name) for name in FOLDERS}
    assert {name: found for name, found in problems.items() if found} == {}


def test_a_door_that_leaves_a_file_out_or_names_a_missing_one_is_caught(tmp_path):
    (tmp_path / "__init__.py").write_text('"""- kept.py: here.\n- gone.py: no longer here."""\n')
    (tmp_path / "kept.py").write_text("")
    (tmp_path / "new.json").write_text("{}")
    assert door_problems(tmp_path) == ["new.json is not named", "gone.py is named, but is not there"]


# --- Prose that names a file: every module docstring, README.md and TUTORIAL.md ------------------

NAMED = re.compile(r"(?<![\w./~-])[\w./-]*\w\.(?:py|json|md)\b")
# Files that are not the project's, named in prose as what they are: a user's project's files
# (fix.py's examples, the test code a project keeps in testing/), a module that shadows pytest,
# the example names of a template.
NOT_OURS = {"setup.py", "noxfile.py", "pytest.py", "x.py", "_test.py", "_testing.py", "file.py", "test_file.py",
            "tests/test_parse.py", "tests/test_one.py", "tests/t.py", "tests/test_file.py", "testing/expected.py"}
PLACEHOLDERS = {"NAME", "FILE", "TIME"}  # a file's name to be filled in: settings/NAME.json, fixes/NAME-TIME.json


@functools.cache
def project_file_names():
    """The name of every file of the project (not the hidden folders', not bytecode)."""
    return {p.name for p in ROOT.rglob("*") if p.is_file()
            and not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(ROOT).parts[:-1])}


def named_file_problems(text, folder):
    """The files `text`, prose in `folder`, names that are not there. A path whose first folder is
    one of the project's is read from the root (or from `folder`); a bare name is a file of any
    folder of the project (agent_loop.py's "verdict.py" is workspace/verdict.py); a path outside
    the project (/tmp/..., ~/code/..., OUT/summary.json) is not the project's to check."""
    problems = []
    for name in sorted(set(NAMED.findall(text)) - NOT_OURS):
        top, _, rest = name.partition("/")
        if set(Path(name).stem.split("-")) <= PLACEHOLDERS or (rest and not (top and (ROOT / top).is_dir())):
            continue
        there = (ROOT / name).is_file() or (folder / name).is_file() if rest else name in project_file_names()
        problems += [] if there else [f"{name} is named, but is not there"]
    return problems


def test_every_file_a_docstring_the_readme_or_the_tutorial_names_is_there():
    texts = {name: (ROOT.joinpath(*name.split(".")[:-1]), ast.get_docstring(ast.parse(
        (ROOT / f"{name.replace('.', '/')}.py").read_text(encoding="utf-8"))) or "") for name in modules()}
    texts.update({md: (ROOT, (ROOT / md).read_text(encoding="utf-8")) for md in ("README.md", "TUTORIAL.md")})
    problems = {name: named_file_problems(text, folder) for name, (folder, text) in texts.items()}
    assert {name: found for name, found in problems.items() if found} == {}


def test_prose_that_names_a_missing_file_is_caught(tmp_path):
    text = ("workspace/verdict.py and verdict.py are there; workspace/verdicts.py and verdicts.py are not; "
            "settings/NAME.json, /tmp/run/summary.json, ~/code/app.py and OUT/summary.json are no files of ours; "
            "nor is runs/NAME-TIME.json, a name to fill in, though runs/ is a folder of ours")
    assert named_file_problems(text, tmp_path) == ["verdicts.py is named, but is not there",
                                                   "workspace/verdicts.py is named, but is not there"]
