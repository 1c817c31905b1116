"""Prepare the real libraries fix.py is measured on (issues 22 and 34): each one's source
distribution from PyPI, with one injected one-line bug, as a git repository of its own, beside a
virtual environment of its test dependencies when it needs more than pytest. A library may have
several bugs, each its own entry and folder (`toolz`, `toolz-2`, ...): one bug a repository, so
a run repairs one thing and its verdict is about that one.

    python measurements/fix-libraries/prepare.py /tmp/fix-libraries            # every entry
    python measurements/fix-libraries/prepare.py /tmp/fix-libraries inflection # one

For each entry, in DEST/NAME: `pip download` of the exact sdist (cached in DEST/downloads),
extracted (tarfile's "data" filter: no link or path out of the folder), committed as shipped
("pristine"), then the one-line bug applied and committed ("bug"), so `git diff HEAD~1` shows
it. A library whose tests need more than pytest gets DEST/NAME/.venv (git ignores it, fix.py
uses it: a repository's own `.venv/bin/python` is its default interpreter). A folder that
already exists is left alone: remove it to prepare it again.

What this file deliberately is not: part of coding-loop. The libraries' code is never copied
into this repository (README.md names package, version and bug instead), nothing here is
imported by the project, and the suite never runs it. It runs no test: fix.py does, sandboxed.
"""
import argparse
import subprocess
import sys
import tarfile
import venv
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Library:
    package: str    # the name on PyPI
    version: str
    path: str       # the file the bug is injected into, relative to the sdist's root
    old: str        # one line, exactly once in `path`
    new: str        # the line with the bug
    deps: tuple = ()  # what the tests need besides pytest and the library itself (a venv if any)
    tests: str = ""   # fix.py's --tests, when some tests cannot pass in the sandbox whatever the code


LIBRARIES = {
    # The example: a wrong modulus. 11th, 12th and 13th get "st", "nd", "rd".
    "inflection": Library("inflection", "0.5.1", "inflection/__init__.py",
                          "    if number % 100 in (11, 12, 13):\n", "    if number % 10 in (11, 12, 13):\n"),
    # The wrong set operation: dissoc keeps exactly the keys it should remove (when it removes many).
    # (toolz/sandbox's test_fold starts processes, which the sandbox refuses, and test_has_version
    # asks for the installed package's metadata: neither can pass on a copy, so --tests leaves them.)
    "toolz": Library("toolz", "1.2.0", "toolz/dicttoolz.py",
                     "        remaining.difference_update(keys)\n", "        remaining.intersection_update(keys)\n",
                     tests="toolz/tests --deselect toolz/tests/test_package.py::test_has_version"),
    # An off-by-one: with word_boundary, a word that ends exactly at max_length is dropped.
    "python-slugify": Library("python-slugify", "9.2.0", "slugify/slugify.py",
                              "            if next_length <= max_length:\n", "            if next_length < max_length:\n",
                              deps=("text-unidecode>=1.3",)),
    # A negative time-zone offset keeps its minutes positive: -05:30 becomes -04:30.
    "iso8601": Library("iso8601", "2.1.0", "iso8601/iso8601.py",
                       "        minutes = -minutes\n", "        minutes = minutes\n",
                       deps=("hypothesis", "pytz")),
    # Issue 34: more bugs, most of them in modules over 400 lines (longer than a small model's
    # whole-file answer). The case forgotten: "Rice" and "Fish" get a plural s.
    "inflection-2": Library("inflection", "0.5.1", "inflection/__init__.py",
                            "    if not word or word.lower() in UNCOUNTABLES:\n",
                            "    if not word or word in UNCOUNTABLES:\n"),
    # The wrong operator: partition_all on a list whose length is not a multiple of n raises.
    "toolz-2": Library("toolz", "1.2.0", "toolz/itertoolz.py",
                       "            end = len(seq) % n\n", "            end = len(seq) // n\n",
                       tests="toolz/tests --deselect toolz/tests/test_package.py::test_has_version"),
    # memoize keys keyword calls on the keywords' names alone: f(x=1) answers f(x=2).
    "toolz-3": Library("toolz", "1.2.0", "toolz/functoolz.py",
                       "                    frozenset(kwargs.items()) if kwargs else None,\n",
                       "                    frozenset(kwargs) if kwargs else None,\n",
                       tests="toolz/tests --deselect toolz/tests/test_package.py::test_has_version"),
    # An off-by-one: a page range such as "5-8" loses its last page.
    "boltons": Library("boltons", "26.2.0", "boltons/strutils.py",
                       "            output += list(range(min(range_limits), max(range_limits)+1))\n",
                       "            output += list(range(min(range_limits), max(range_limits)))\n"),
    # `>` for `>=`: chunk_ranges yields one chunk too many when the last one ends at the input's end.
    "boltons-2": Library("boltons", "26.2.0", "boltons/iterutils.py",
                         "        if i + chunk_size >= input_stop:\n", "        if i + chunk_size > input_stop:\n"),
    # Fractional seconds padded on the wrong side: ".5" becomes 5 microseconds, not 500000.
    # (parse's pyproject.toml asks for --cov: its tests need pytest-cov.)
    "parse": Library("parse", "1.22.4", "parse/__init__.py",
                     '                u = int(u.ljust(6, "0")[:6])\n', '                u = int(u.rjust(6, "0")[:6])\n',
                     deps=("pytest-cov",)),
    # The wrong hour compared: 12:15 AM stays 12:15 instead of becoming 00:15.
    "parse-2": Library("parse", "1.22.4", "parse/__init__.py",
                       '        if am == "AM" and H == 12:\n', '        if am == "AM" and H == 0:\n',
                       deps=("pytest-cov",)),
    # A default of 0 for a missing day: a date without one ("2014-02", "2014") cannot be parsed.
    "iso8601-2": Library("iso8601", "2.1.0", "iso8601/iso8601.py",
                         '            day=int(groups.get("day", groups.get("daydash", 1))),\n',
                         '            day=int(groups.get("day", groups.get("daydash", 0))),\n',
                         deps=("hypothesis", "pytz")),
}
GIT = ["git", "-c", "user.name=fix-libraries", "-c", "user.email=fix-libraries@localhost", "-c", "commit.gpgsign=false"]
IGNORED = ".venv/\n__pycache__/\n*.egg-info/\n.pytest_cache/\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="where the repositories go (never inside coding-loop)")
    parser.add_argument("names", nargs="*", choices=[[], *LIBRARIES], metavar="NAME",
                        help=f"which entries (default: all of {', '.join(LIBRARIES)})")
    args = parser.parse_args(argv)
    for name in args.names or LIBRARIES:
        folder = args.dest.resolve() / name
        library = LIBRARIES[name]
        if folder.exists():
            print(f"{name}: {folder} exists; left as it is")
        else:
            prepare(library, folder, args.dest.resolve() / "downloads")
            print(f"{name}: {folder} ({library.package} {library.version}, the bug in {library.path})")
        print(f"  {fix_command(name, library, folder)}")


def fix_command(name, library, folder):
    """The fix.py command of the measurement, from coding-loop's folder (README.md says the rest)."""
    tests = f' --tests "{library.tests}"' if library.tests else ""
    return (f".venv/bin/python fix.py --repo {folder}{tests} --api openai --base-url http://127.0.0.1:8080/v1 "
            f"--model qwen2.5-coder-1.5b --temperature 0.7 --output measurements/fix-libraries/{name}-after.json")


def prepare(library, folder, downloads):
    sdist = download(library, downloads)
    extract(sdist, folder)
    git(folder, "init", "-q")
    (folder / ".git" / "info").mkdir(exist_ok=True)
    (folder / ".git" / "info" / "exclude").write_text(IGNORED)
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", f"{library.package} {library.version} as shipped (pristine)")
    inject(library, folder)
    git(folder, "commit", "-qam", f"bug: {library.new.strip()} (was: {library.old.strip()})")
    if library.deps:
        venv.create(folder / ".venv", with_pip=True)
        subprocess.run([str(folder / ".venv/bin/python"), "-m", "pip", "install", "-q", "pytest", *library.deps],
                       check=True)


def download(library, downloads):
    """The sdist's path, downloaded once: `pip download` of exactly this version, no wheel."""
    downloads.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    "-d", str(downloads), f"{library.package}=={library.version}"], check=True)
    stem = library.package.replace("-", "_")
    found = [p for p in downloads.glob("*.tar.gz")
             if p.name.lower().replace("-", "_").startswith(f"{stem}_{library.version}".lower())]
    if len(found) != 1:
        raise SystemExit(f"{library.package}: expected one sdist in {downloads}, found {[p.name for p in found]}")
    return found[0]


def extract(sdist, folder):
    """The sdist's one top folder becomes `folder`."""
    staging = folder.with_name(folder.name + ".extracting")
    with tarfile.open(sdist) as archive:
        archive.extractall(staging, filter="data")
    (top,) = staging.iterdir()
    top.rename(folder)
    staging.rmdir()


def inject(library, folder):
    path = folder / library.path
    text = path.read_text(encoding="utf-8")
    if text.count(library.old) != 1:
        raise SystemExit(f"{library.package}: the line to change is in {library.path} "
                         f"{text.count(library.old)} times, not once")
    path.write_text(text.replace(library.old, library.new), encoding="utf-8")


def git(folder, *args):
    subprocess.run([*GIT, "-C", str(folder), *args], check=True)


if __name__ == "__main__":
    main()
