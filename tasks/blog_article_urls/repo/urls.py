"""Web addresses for the blog: slugs from titles, article and archive URLs."""
import re
import unicodedata


def slug(title):
    """The lower-case ASCII words of `title` joined by hyphens."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", ascii_title.lower()))


def archive_url(section, year, month=None):
    """'/<section>/<year>/', or '/<section>/<year>/<month>/' for one month."""
    if month is None:
        return f"/{section}/{year}/"
    return f"/{section}/{year}/{month:02d}/"


def article_url(section, title, published):
    """'/<section>/<year>/<month>/<slug of the title>/' for an article published on `published`."""
    slug = slug(title)
    return f"{archive_url(section, published.year, published.month)}{slug}/"


def is_article_url(path):
    """Whether `path` has the shape article_url gives."""
    return re.fullmatch(r"/[a-z0-9-]+/\d{4}/\d{2}/[a-z0-9-]+/", path) is not None
