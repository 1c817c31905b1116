from decimal import Decimal

import pytest

from payments import Payment, RefundError, refund


def paid(amount="100.00"):
    return Payment("A-1042", Decimal(amount))


def test_full_refund():
    payment = paid()
    assert refund(payment, "100.00") == Decimal("0.00")
    assert payment.refunded == Decimal("100.00")


def test_partial_refund_returns_what_is_left():
    assert refund(paid(), "30.00") == Decimal("70.00")


def test_refund_must_be_positive():
    with pytest.raises(RefundError):
        refund(paid(), "0")
    with pytest.raises(RefundError):
        refund(paid(), "-5.00")


def test_refund_larger_than_the_payment_is_refused():
    with pytest.raises(RefundError):
        refund(paid(), "100.01")


def test_remaining_amount_can_be_refunded():
    payment = paid()
    refund(payment, "60.00")
    assert refund(payment, "40.00") == Decimal("0.00")


def test_second_refund_cannot_exceed_what_is_left():
    payment = paid()
    refund(payment, "60.00")
    with pytest.raises(RefundError):
        refund(payment, "60.00")


def test_refused_refund_is_not_recorded():
    payment = paid()
    refund(payment, "60.00")
    try:
        refund(payment, "50.00")
    except RefundError:
        pass
    assert payment.refunded == Decimal("60.00")
