"""Pages of a list for the web views: which items go on page N."""


def page_count(total, per_page):
    """How many pages `total` items fill at `per_page` a page; an empty list has one page."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    return max(1, total // per_page)


def page(items, number, per_page):
    """Return (the items on page `number`, counted from 1, whether another page follows)."""
    pages = page_count(len(items), per_page)
    if not 1 <= number <= pages:
        raise ValueError(f"page {number} out of range 1..{pages}")
    start = (number - 1) * per_page
    return items[start:start + per_page], number < pages
