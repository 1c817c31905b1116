"""The project's own top-level packages, as its packaging names them: what it ships.

workspace/user_tests.py asks this to tell a package the tests test (imported by them alone, as
most packages are) from test-support code beside it (`testing/expected.py`). `own_packages(tree,
files, project)` reads the names a project gives itself and its packages, and keeps those that
are top-level packages or modules of the repository (at its root or under `src/`):

- pyproject.toml: `[project] name`, `[tool.poetry]` name and packages, `[tool.setuptools]`
  packages and py-modules, `[tool.flit.module] name`, hatch's wheel packages;
- setup.cfg: `[metadata] name`, `[options]` packages and py_modules;
- setup.py: `name=`, `packages=[...]`, `py_modules=[...]` written as literal strings (read as
  text: setup.py is never run);
- and the repository folder's own name (`project`), less a version (`inflection-0.5.1`).

Names are compared as Python spells them: `more-itertools` is `more_itertools`.

What this file deliberately is not: a build backend. `find_packages()` and dynamic metadata are
not evaluated; when no name matches, the answer is None (unknown), and user_tests.py falls back
to the names of the modules.
"""
import configparser
import re
import tomllib
from pathlib import Path, PurePosixPath

MAX_CONFIG_BYTES = 1_000_000
VERSION = re.compile(r"[-_]v?\d+(\.\d+)*\w*$")  # "-0.5.1", "_2.0rc1" at the end of a folder name


def own_packages(tree, files, project=""):
    """The top-level names (a package folder or module, without .py) the project ships, or None."""
    tops = {_top(path) for path in files if path.endswith(".py")}
    declared = {_normal(name) for name in [*_declared(Path(tree)), VERSION.sub("", project)] if name}
    declared |= {name.removeprefix("python_") for name in declared}  # python-slugify ships slugify
    return (declared & tops) or None


def _top(path):
    parts = PurePosixPath(path[4:] if path.startswith("src/") else path).parts
    return parts[0].removesuffix(".py")


def _normal(name):
    """A name as Python spells the package: "more-itertools" is more_itertools, "toolz.sandbox" toolz."""
    return re.sub(r"[-\s]+", "_", name.strip().split(".")[0]).lower()


def _declared(tree):
    return [*_from_pyproject(_text(tree / "pyproject.toml")), *_from_setup_cfg(_text(tree / "setup.cfg")),
            *_from_setup_py(_text(tree / "setup.py"))]


def _text(path):
    try:
        if path.is_symlink() or path.stat().st_size > MAX_CONFIG_BYTES:
            return ""
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _from_pyproject(text):
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return []
    tool = _table(data.get("tool"))
    poetry, setuptools = _table(tool.get("poetry")), _table(tool.get("setuptools"))
    wheel = _table(_table(_table(_table(tool.get("hatch")).get("build")).get("targets")).get("wheel"))
    names = [_table(data.get("project")).get("name"), poetry.get("name"),
             _table(_table(tool.get("flit")).get("module")).get("name"),
             *[_table(p).get("include") for p in _list(poetry.get("packages"))],
             *_list(setuptools.get("packages")), *_list(setuptools.get("py-modules")),
             *[PurePosixPath(p).name for p in _list(wheel.get("packages")) if isinstance(p, str)]]
    return [name for name in names if isinstance(name, str)]


def _table(value):
    return value if isinstance(value, dict) else {}


def _list(value):
    return value if isinstance(value, list) else []


def _from_setup_cfg(text):
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    values = [parser.get("metadata", "name", fallback=""), parser.get("options", "packages", fallback=""),
              parser.get("options", "py_modules", fallback="")]
    return [name for value in values for name in re.split(r"[\s,]+", value) if name and ":" not in name]


def _from_setup_py(text):
    names = re.findall(r"\bname\s*=\s*['\"]([\w.-]+)['\"]", text)
    for listed in re.findall(r"\b(?:packages|py_modules)\s*=\s*\[([^\]]{0,2000})\]", text):
        names += re.findall(r"['\"]([\w.-]+)['\"]", listed)
    return names
