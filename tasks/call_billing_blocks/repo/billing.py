"""Phone call billing: a call is charged per started block of time (a minute by default)."""
from decimal import Decimal

BLOCK_SECONDS = 60


def billed_blocks(seconds, block=BLOCK_SECONDS):
    """How many blocks a call of `seconds` is charged: every started block counts."""
    if seconds < 0:
        raise ValueError("a call cannot last a negative time")
    return round(seconds / block)


def call_cost(seconds, price_per_block, block=BLOCK_SECONDS):
    """The price of one call."""
    return Decimal(price_per_block) * billed_blocks(seconds, block)


def monthly_bill(durations, price_per_block):
    """The total cost of calls of the given durations in seconds."""
    return sum((call_cost(seconds, price_per_block) for seconds in durations), Decimal("0"))


def duration_text(seconds):
    """'m:ss', as the itemised bill shows a call's length."""
    return f"{seconds // 60}:{seconds % 60:02d}"
