from decimal import Decimal

from sales_report import best_seller, region_total, report

MARCH = ["region,product,amount", "north,kettle,24.99", "south,mug,8.00", "North,mug,8.00",
         "north,teapot,31.50", "south,kettle,24.99", "east,mug,8.00"]


def test_a_region_with_one_sale():
    assert region_total(MARCH, "east") == Decimal("8.00")


def test_a_region_without_sales():
    assert region_total(MARCH, "west") == Decimal("0.00")


def test_every_sale_of_a_region_counts():
    assert region_total(MARCH, "north") == Decimal("64.49")
    assert region_total(MARCH, "South") == Decimal("32.99")


def test_best_seller():
    assert best_seller(MARCH) == "mug" and best_seller([]) is None


def test_report():
    assert report(MARCH, ["north", "south"]) == "north: 64.49\nsouth: 32.99\nbest seller: mug"
