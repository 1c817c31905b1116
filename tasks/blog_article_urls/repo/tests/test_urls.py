from datetime import date

from urls import archive_url, article_url, is_article_url, slug


def test_slug_keeps_words_only():
    assert slug("Hello, World!") == "hello-world"


def test_slug_drops_accents():
    assert slug("Café crème: 10 recettes") == "cafe-creme-10-recettes"


def test_archive_urls():
    assert archive_url("news", 2024) == "/news/2024/"
    assert archive_url("news", 2024, 5) == "/news/2024/05/"


def test_article_url():
    assert article_url("news", "Hello, World!", date(2024, 5, 17)) == "/news/2024/05/hello-world/"


def test_an_article_url_has_the_article_shape():
    assert is_article_url(article_url("recipes", "Café crème", date(2023, 11, 2)))
    assert not is_article_url("/news/2024/")
