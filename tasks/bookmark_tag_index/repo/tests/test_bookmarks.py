from bookmarks import Bookmark, build_index, normalize_tag, tag_cloud, tagged

DOCS = Bookmark("https://docs.python.org", "Python docs", ("#Python", "reference"))
PEP8 = Bookmark("https://peps.python.org/pep-0008/", "PEP 8", ("python", "style"))
MDN = Bookmark("https://developer.mozilla.org", "MDN", ("web", "Reference"))


def test_normalize_tag():
    assert normalize_tag("  #Python ") == "python"


def test_an_unused_tag_has_no_bookmarks():
    assert tagged(build_index([DOCS]), "cooking") == []


def test_nothing_to_index():
    assert build_index([]) == {}


def test_index_groups_bookmarks_by_tag():
    index = build_index([DOCS, PEP8, MDN])
    assert index["python"] == [DOCS, PEP8]
    assert index["reference"] == [DOCS, MDN]


def test_tagged_ignores_case_and_hash():
    assert tagged(build_index([DOCS, PEP8, MDN]), "#PYTHON") == [DOCS, PEP8]


def test_tag_cloud():
    assert tag_cloud(build_index([DOCS, PEP8, MDN])) == [("python", 2), ("reference", 2), ("style", 1), ("web", 1)]
