from reviews import Review, average_stars, headline, most_helpful, star_bar


def test_no_reviews_average_zero():
    assert average_stars([]) == 0.0


def test_equal_ratings():
    assert average_stars([Review("a", 3), Review("b", 3)]) == 3.0


def test_average_keeps_the_fraction():
    assert average_stars([Review("a", 5), Review("b", 4)]) == 4.5


def test_average_is_rounded_to_one_decimal():
    assert average_stars([Review("a", 5), Review("b", 5), Review("c", 4)]) == 4.7


def test_star_bar():
    assert star_bar(4.7) == "★★★★☆" and star_bar(0.0) == "☆☆☆☆☆"


def test_most_helpful_are_the_longest_written_reviews():
    reviews = [Review("a", 5, "ok"), Review("b", 2, ""), Review("c", 4, "works well, a bit loud")]
    assert [r.author for r in most_helpful(reviews)] == ["c", "a"]


def test_headline():
    assert headline([Review("a", 5), Review("b", 4)]) == "4.5 ★★★★☆ (2 reviews)"
