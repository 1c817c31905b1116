"""Product reviews: star ratings from 1 to 5 and what the product page shows of them."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Review:
    author: str
    stars: int
    text: str = ""


def average_stars(reviews):
    """The mean star rating, to one decimal; 0.0 for a product without reviews."""
    if not reviews:
        return 0.0
    return round(sum(review.stars for review in reviews) // len(reviews), 1)


def star_bar(average):
    """Five characters: a full star for each whole star of `average`, then empty ones."""
    full = int(average)
    return "★" * full + "☆" * (5 - full)


def most_helpful(reviews, count=3):
    """The `count` longest reviews that have text, longest first."""
    written = [review for review in reviews if review.text.strip()]
    return sorted(written, key=lambda review: len(review.text), reverse=True)[:count]


def headline(reviews):
    """'4.5 ★★★★☆ (2 reviews)', as the top of the product page shows it."""
    average = average_stars(reviews)
    noun = "review" if len(reviews) == 1 else "reviews"
    return f"{average} {star_bar(average)} ({len(reviews)} {noun})"
