from decimal import Decimal

import pytest

from checkout import cart_subtotal, order_total

CART = [("12.00", 2), ("6.00", 1)]  # 30.00
BIG_CART = [("10.00", 4)]  # 40.00


def test_subtotal_counts_quantities():
    assert cart_subtotal(CART) == Decimal("30.00")


def test_total_without_coupon_is_the_subtotal():
    assert order_total(CART) == Decimal("30.00")


def test_tax_is_added_to_the_total():
    assert order_total(CART, tax_percent=20) == Decimal("36.00")


def test_coupon_takes_its_percentage_off():
    assert order_total(BIG_CART, coupon="SPRING15") == Decimal("34.00")


def test_coupon_code_ignores_case_and_spaces():
    assert order_total(CART, coupon=" welcome10 ") == Decimal("27.00")


def test_tax_applies_after_the_discount():
    assert order_total(BIG_CART, coupon="STAFF25", tax_percent=20) == Decimal("36.00")


def test_unknown_coupon_is_refused():
    with pytest.raises(ValueError, match="unknown coupon"):
        order_total(CART, coupon="FREESTUFF")
