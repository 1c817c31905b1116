"""Till receipts: one row per item, name on the left and amount on the right, then the total."""
from decimal import Decimal

WIDTH = 32


def money(amount):
    """An amount as the till prints it, in pounds and pence."""
    return f"{Decimal(amount):.1f}"


def row(name, amount):
    """A name and an amount, WIDTH characters in all; a long name is cut short."""
    shown = money(amount)
    room = WIDTH - len(shown) - 1
    return f"{name[:room]:<{room}} {shown}"


def total(items):
    """The sum of every (name, amount) item."""
    return sum((Decimal(amount) for _, amount in items), Decimal("0"))


def receipt(items):
    """Every item's row, a rule, then the TOTAL row."""
    rows = [row(name, amount) for name, amount in items]
    return "\n".join(rows + ["-" * WIDTH, row("TOTAL", total(items))])
