"""Checkout: turn a cart into the amount the customer pays."""
from decimal import Decimal

from pricing import percent_off, round_cents, with_tax

# Coupon codes and the percentage each one takes off the goods.
COUPONS = {"WELCOME10": 10, "SPRING15": 15, "STAFF25": 25}


def cart_subtotal(cart):
    """Sum of price * quantity over the cart's (price, quantity) pairs."""
    return round_cents(sum((Decimal(price) * quantity for price, quantity in cart), Decimal("0")))


def order_total(cart, coupon=None, tax_percent=0):
    """What the customer pays: the subtotal, less the coupon's discount, plus tax.

    Coupon codes are matched ignoring case and surrounding spaces; an unknown code
    raises ValueError so the shop can tell the customer."""
    amount = cart_subtotal(cart)
    if coupon is not None:
        code = coupon.strip().upper()
        if code not in COUPONS:
            raise ValueError(f"unknown coupon {coupon!r}")
        amount = percent_off(amount, COUPONS[code])
    return with_tax(amount, tax_percent)
