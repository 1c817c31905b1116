"""Timed promotions: a percentage off that runs for a span of calendar days."""
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal


@dataclass(frozen=True)
class Promotion:
    """A sale of `percent` per cent off, from `first_day` to `last_day`, both included."""

    name: str
    first_day: date
    last_day: date
    percent: int

    def is_running(self, day):
        """Whether the promotion applies on `day`."""
        return self.first_day <= day < self.last_day


def price_on(day, price, promotions):
    """The price on `day`: the best running promotion applied, else the full price."""
    running = [promotion.percent for promotion in promotions if promotion.is_running(day)]
    if not running:
        return price
    return (price * (100 - max(running)) / 100).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
