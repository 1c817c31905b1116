import pytest

from pagination import page, page_count

ORDERS = [f"order-{n}" for n in range(1, 26)]  # 25 orders


def test_exact_multiple_fills_whole_pages():
    assert page_count(20, 10) == 2


def test_empty_list_has_one_page():
    assert page_count(0, 10) == 1
    assert page([], 1, 10) == ([], False)


def test_partial_last_page_is_counted():
    assert page_count(25, 10) == 3


def test_first_page_says_more_follow():
    assert page(ORDERS, 1, 10) == (ORDERS[:10], True)


def test_last_page_holds_the_remainder():
    assert page(ORDERS, 3, 10) == (ORDERS[20:], False)


def test_page_past_the_end_is_refused():
    with pytest.raises(ValueError, match="out of range"):
        page(ORDERS, 4, 10)
