"""Money helpers shared by the shop: rounding, percentages and tax."""
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def round_cents(amount):
    """Round an amount to whole cents, halves away from zero."""
    return Decimal(amount).quantize(CENT, rounding=ROUND_HALF_UP)


def to_rate(percent):
    """Turn a percentage such as 15 into the fraction 0.15."""
    return Decimal(str(percent)) / 100


def percent_off(amount, percent):
    """Return `amount` reduced by `percent` per cent of it, rounded to the cent."""
    discount = amount * to_rate(percent) / 100
    return round_cents(amount - discount)


def with_tax(amount, percent):
    """Return `amount` plus `percent` per cent tax, rounded to the cent."""
    return round_cents(amount * (1 + to_rate(percent)))
