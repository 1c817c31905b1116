from decimal import Decimal

from receipt import WIDTH, money, receipt, row, total

ITEMS = [("Flat white", "3.50"), ("Blueberry muffin", "2.25"), ("Water", "1.00")]


def test_total():
    assert total(ITEMS) == Decimal("6.75")


def test_rows_are_the_full_width():
    assert all(len(row(name, amount)) == WIDTH for name, amount in ITEMS)


def test_a_long_name_is_cut_short():
    assert row("Extra large seasonal pumpkin spice latte", "4.95").startswith("Extra large seasonal")
    assert len(row("Extra large seasonal pumpkin spice latte", "4.95")) == WIDTH


def test_money_has_pence():
    assert money("3.50") == "3.50"
    assert money("2.25") == "2.25"
    assert money(12) == "12.00"


def test_receipt_lines():
    lines = receipt(ITEMS).splitlines()
    assert lines[0] == "Flat white" + " " * 18 + "3.50"
    assert lines[-1].endswith(" 6.75") and lines[-2] == "-" * WIDTH
