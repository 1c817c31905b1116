from decimal import Decimal

import pytest

from billing import billed_blocks, call_cost, duration_text, monthly_bill


def test_whole_minutes():
    assert billed_blocks(0) == 0 and billed_blocks(60) == 1 and billed_blocks(180) == 3


def test_a_negative_duration_is_refused():
    with pytest.raises(ValueError):
        billed_blocks(-1)


def test_a_started_minute_is_charged():
    assert billed_blocks(61) == 2


def test_a_short_call_is_charged_one_minute():
    assert billed_blocks(29) == 1


def test_blocks_of_other_lengths():
    assert billed_blocks(31, block=30) == 2


def test_call_cost_and_monthly_bill():
    assert call_cost(120, "0.12") == Decimal("0.24")
    assert monthly_bill([61, 29, 60], "0.10") == Decimal("0.40")


def test_duration_text():
    assert duration_text(61) == "1:01" and duration_text(29) == "0:29"
