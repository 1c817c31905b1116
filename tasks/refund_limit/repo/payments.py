"""Card payments and the refunds made against them."""
from dataclasses import dataclass, field
from decimal import Decimal


class RefundError(ValueError):
    """A refund that must not be made."""


@dataclass
class Payment:
    """A captured payment and the refunds made on it so far."""

    reference: str
    amount: Decimal
    refunds: list = field(default_factory=list)

    @property
    def refunded(self):
        """How much has been given back so far."""
        return sum(self.refunds, Decimal("0"))

    @property
    def refundable(self):
        """How much may still be given back."""
        return self.amount - self.refunded


def refund(payment, amount):
    """Give `amount` back on `payment` and return what is left refundable.

    Raises RefundError, recording nothing, for an amount that is not positive or
    that is more than the payment has left to refund."""
    amount = Decimal(amount)
    if amount <= 0:
        raise RefundError("a refund must be positive")
    if amount > payment.amount:
        raise RefundError(f"cannot refund {amount}: only {payment.refundable} left on {payment.reference}")
    payment.refunds.append(amount)
    return payment.refundable
