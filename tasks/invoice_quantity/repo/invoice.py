"""Invoices: the lines of goods, their amounts, and the printed invoice."""
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Line:
    """One invoice line: a product, its unit price and how many were bought."""

    product: str
    unit_price: Decimal
    quantity: int = 1

    @property
    def amount(self):
        """The line's amount: unit price times quantity."""
        return self.unit_price * self.quantity


def invoice_total(lines):
    """The sum the customer owes for all the lines of the invoice."""
    total = Decimal("0.00")
    for line in lines:
        total += line.unit_price
    return total


def render(lines):
    """The invoice as text: one row per line, then the total."""
    rows = [f"{line.quantity:>3} x {line.product:<12} {line.amount:>8}" for line in lines]
    rows.append(f"{'TOTAL':<18} {invoice_total(lines):>8}")
    return "\n".join(rows)
