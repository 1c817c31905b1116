"""Bookmarks with tags: an index from each tag to its bookmarks, and searching it."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Bookmark:
    url: str
    title: str
    tags: tuple = ()


def normalize_tag(tag):
    """Tags are compared in lower case, without surrounding spaces or a leading '#'."""
    return tag.strip().lstrip("#").lower()


def build_index(bookmarks):
    """{tag: [the bookmarks with that tag, in the order given]}."""
    index = {}
    for bookmark in bookmarks:
        for tag in bookmark.tags:
            index.get(normalize_tag(tag), []).append(bookmark)
    return index


def tagged(index, tag):
    """The bookmarks with `tag`; [] for a tag nobody used."""
    return index.get(normalize_tag(tag), [])


def tag_cloud(index):
    """(tag, how many bookmarks) pairs, most used first, then alphabetical."""
    return sorted(((tag, len(marks)) for tag, marks in index.items()), key=lambda pair: (-pair[1], pair[0]))
