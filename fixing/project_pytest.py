"""A user's own project's tests, run the project's way: its interpreter, its configuration.

fix.py works on a repository the user owns, not on one of the tasks, so the tasks' fixed
command (`-c /dev/null`, only tests/) is the wrong one: the project's pytest.ini,
pyproject.toml and conftest.py files are part of how its tests pass. `project_command(...)`
builds a PytestCommand that keeps everything else pytest_run.py guarantees (a throwaway copy,
the sandbox, a clean environment, bounded time and output) and changes only this:

- the interpreter: `--python`, else the repository's `.venv/bin/python`, else this one. Its
  folders are mounted read-only in the sandbox, and the copy appears at the repository's own
  path in there (hiding the real one), so an editable install (`pip install -e .`) imports
  the copy the model edits, never the user's files;
- the configuration: the repository's own file, found at its root in pytest's order and passed
  with `-c` (`--rootdir .`, `--confcutdir .`), so nothing above the copy is read;
- plugins: autoloaded for the project's own interpreter (its plugins are its test dependencies,
  pytest-asyncio or pytest-django), never for this harness's (those plugins are coding-loop's);
- our flags come after the project's `addopts`, so whatever it asks for, every test runs and
  is counted (`--maxfail=0` undoes `-x`), the output is short at one fixed verbosity
  (`--verbosity=-1`: a `-q` of ours would add to an `-q` of the project's, and at `-qq` pytest
  prints no count), plain (`--color=no`), with short tracebacks (`--tb=short`, TRACEBACKS: a long
  traceback prints the test function whole for each failure, and at iso8601 a test under a
  parametrize of 200 lines filled the kept output before its first E line) and ends with one
  line per failure (`-rfE`). A flag
  that skips tests by what an earlier run saw (`--lf`, `--sw`) has no flag that undoes it: the
  configuration's `addopts` is read (`addopts(...)`) and handed back without it (`-o addopts=`).
  The user's `--tests` come last: a selection asked for there stays. `plugin_modules(...)` names
  what `-p NAME` loads there or in `addopts`: fixture modules, test code (workspace/user_tests.py).

What this file deliberately is not: a process runner (pytest_run.py runs the command), a reader
of pytest's output (workspace/pytest_output.py; workspace/pytest_collection.py says whether pytest
or a dependency is missing) or the judge of what a start run means (first_steps.py says that).
"""
import configparser
import os
import re
import shlex
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

from workspace import sandbox
from workspace.pytest_run import CLEAN_ENV, PytestCommand, run_pytest

# pytest's own order of configuration files, and the section each must hold to count.
CONFIGS = (("pytest.toml", None), (".pytest.toml", None), ("pytest.ini", None), (".pytest.ini", None),
           ("pyproject.toml", r"^\[tool\.pytest(\.ini_options)?\]"), ("tox.ini", "pytest"),
           ("setup.cfg", "tool:pytest"))
OUR_FLAGS = ("--verbosity=-1", "--maxfail=0", "--color=no", "-rfE", "--rootdir", ".", "--confcutdir", ".")
TRACEBACKS = "short"  # fix.py's traceback style; a recording keeps it (task_spec), None: pytest's own
COLLECT = ("--collect-only", "--verbosity=-2")  # one line per test file: "tests/test_a.py: 4"
# Flags that run only what an earlier run failed or stopped at (stepwise stops at the first failure).
REPLAYS = {"--lf", "--last-failed", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip", "--sw-reset",
           "--stepwise-reset"}


def default_python(repo):
    """The repository's own `.venv/bin/python` when it has one, else the one running us."""
    own = Path(repo) / ".venv" / "bin" / "python"
    return str(own) if os.access(own, os.X_OK) else sys.executable


def project_command(repo, python, tests_args=(), timeout=60.0, tracebacks=TRACEBACKS):
    """The PytestCommand for the repository at `repo` (its real path, where the copy appears
    in the sandbox), run by `python` with the user's `--tests` arguments; `tracebacks` is
    pytest's `--tb` style (None: no flag, as fix.py ran before it asked for short ones)."""
    repo = os.path.realpath(repo)
    python = _placed(python)
    own = python != _placed(sys.executable)  # this harness's interpreter brings coding-loop's plugins
    env = {**CLEAN_ENV, "PATH": f"{os.path.dirname(python)}:{CLEAN_ENV['PATH']}"}  # as an activated venv
    if own:
        del env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
    config = config_file(repo)
    asked = addopts(repo, config)
    kept = [arg for arg in asked if arg not in REPLAYS]
    replaced = ("-o", f"addopts={shlex.join(kept)}") if kept != asked else ()
    style = (f"--tb={tracebacks}",) if tracebacks else ()
    args = (*OUR_FLAGS, *style, "-c", config or os.devnull, *replaced, *tests_args)
    return PytestCommand(python=python, args=args, env=tuple(sorted(env.items())),
                         places=interpreter_places(python), inside=repo, timeout=timeout)


def tracebacks_of(command):
    """The `--tb` style `command` asks for (project_command's), or None."""
    return next((arg.split("=", 1)[1] for arg in command.args[:len(OUR_FLAGS) + 1] if arg.startswith("--tb=")), None)


def _placed(python):
    """The interpreter's path with its folders resolved and the file itself not: a venv's python
    is a link whose own path matters (it finds its venv by it), and a venv reached through a
    linked folder is still the same venv."""
    return os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(python))), os.path.basename(python))


def config_file(repo):
    """The repository's pytest configuration file (relative), as pytest would pick it at its root."""
    for name, section in CONFIGS:
        path = Path(repo) / name
        if not path.is_file():
            continue
        if section is None:
            return name
        text = _text(path)
        if name.endswith(".toml") and re.search(section, text, re.M):
            return name
        if not name.endswith(".toml") and _has_section(text, section):
            return name
    return None


def addopts(repo, config):
    """The arguments the configuration file `config` (relative to `repo`) adds to every run: its
    `addopts`, split as pytest splits it; [] when it has none or cannot be read."""
    if config is None:
        return []
    text = _text(Path(repo) / config)
    if config.endswith(".toml"):
        try:
            table = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return []
        for key in (("tool", "pytest") if config == "pyproject.toml" else ("pytest",)):
            table = table.get(key) if isinstance(table, dict) else None
        if isinstance(table, dict) and isinstance(table.get("ini_options"), dict):
            table = table["ini_options"]  # [tool.pytest.ini_options], the older form
        value = table.get("addopts") if isinstance(table, dict) else None
    else:
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text)
            value = parser.get("tool:pytest" if config == "setup.cfg" else "pytest", "addopts", fallback=None)
        except configparser.Error:
            return []
    if isinstance(value, list):
        return [str(arg) for arg in value]
    try:
        return shlex.split(value) if isinstance(value, str) else []
    except ValueError:
        return []


def plugin_modules(repo, tests_args=()):
    """The modules `-p NAME` loads as plugins, in the configuration's `addopts` or the user's
    `--tests`: fixture modules, test code as much as what the tests import."""
    args = [*addopts(repo, config_file(repo)), *tests_args]
    names = [after for arg, after in zip(args, args[1:]) if arg == "-p"]
    names += [arg[2:] for arg in args if arg.startswith("-p") and len(arg) > 2 and not arg.startswith("-p=")]
    return [name for name in names if not name.startswith("no:")]


def _text(path):
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _has_section(text, section):
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return False
    return parser.has_section(section)


def interpreter_places(python):
    """Folders `python` needs besides the system: the one holding its bin/ (a virtual
    environment, perhaps inside the repository), the base interpreter a venv's pyvenv.cfg
    names, and the real interpreter's prefix (pyenv's or a CI's may be in a hidden place)."""
    venv = Path(python).parent.parent
    places = {str(venv), str(Path(os.path.realpath(python)).parent.parent)}
    home = re.search(r"^home\s*=\s*(.+)$", _text(venv / "pyvenv.cfg"), re.M)
    if home:
        places.add(str(Path(home.group(1).strip()).parent))
    return tuple(sorted(os.path.realpath(p) for p in places if os.path.realpath(p) != "/" and os.path.isdir(p)))


def project_tests(tree, command, extra=()):
    """The project's tests on a throwaway copy of `tree`, as RepoTools.run_tests reports them."""
    name, warning = sandbox.detect()
    result = run_pytest(tree, command.timeout, name, replace(command, args=(*command.args, *extra)))
    return {**result, "sandbox": name, **({"sandbox_warning": warning} if warning else {})}
