from path_rules import python_sources


def test_keeps_python_files_under_src_in_order():
    changed = ["src/app.py", "README.md", "src/util/io.py"]
    assert python_sources(changed) == ["src/app.py", "src/util/io.py"]


def test_skips_files_that_are_not_python():
    assert python_sources(["src/data.json", "src/app.pyc", "src/notes.py.txt"]) == []


def test_skips_python_files_outside_src():
    assert python_sources(["tests/test_app.py", "setup.py", "docs/src/conf.py"]) == []


def test_accepts_windows_separators():
    changed = ["src\\app.py", "src\\pkg\\mod.py", "docs\\conf.py"]
    assert python_sources(changed) == ["src/app.py", "src/pkg/mod.py"]
