from decimal import Decimal

from invoice import Line, invoice_total, render

MUGS = Line("mug", Decimal("4.50"), 3)
TEAPOT = Line("teapot", Decimal("20.00"))


def test_line_amount_multiplies_by_quantity():
    assert MUGS.amount == Decimal("13.50")


def test_total_of_single_items():
    assert invoice_total([TEAPOT, Line("pen", Decimal("1.20"))]) == Decimal("21.20")


def test_empty_invoice_totals_zero():
    assert invoice_total([]) == Decimal("0.00")


def test_total_counts_every_unit():
    assert invoice_total([MUGS, TEAPOT]) == Decimal("33.50")


def test_printed_total_matches_the_lines():
    rows = render([MUGS]).splitlines()
    assert rows[0].endswith("13.50")
    assert rows[-1].startswith("TOTAL")
    assert rows[-1].endswith("13.50")
