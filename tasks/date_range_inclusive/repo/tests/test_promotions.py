from datetime import date
from decimal import Decimal

from promotions import Promotion, price_on

SUMMER = Promotion("summer sale", date(2024, 8, 1), date(2024, 8, 31), 20)
LAMP = Decimal("50.00")


def test_full_price_before_the_sale():
    assert price_on(date(2024, 7, 31), LAMP, [SUMMER]) == Decimal("50.00")


def test_sale_price_on_the_first_day():
    assert price_on(date(2024, 8, 1), LAMP, [SUMMER]) == Decimal("40.00")


def test_sale_price_in_the_middle():
    assert price_on(date(2024, 8, 15), LAMP, [SUMMER]) == Decimal("40.00")


def test_sale_price_on_the_last_day():
    assert price_on(date(2024, 8, 31), LAMP, [SUMMER]) == Decimal("40.00")


def test_full_price_after_the_sale():
    assert price_on(date(2024, 9, 1), LAMP, [SUMMER]) == Decimal("50.00")


def test_best_of_overlapping_promotions_wins():
    staff = Promotion("staff week", date(2024, 8, 10), date(2024, 8, 20), 30)
    assert price_on(date(2024, 8, 12), LAMP, [SUMMER, staff]) == Decimal("35.00")


def test_one_day_flash_sale():
    flash = Promotion("flash sale", date(2024, 9, 5), date(2024, 9, 5), 50)
    assert price_on(date(2024, 9, 5), LAMP, [flash]) == Decimal("25.00")
