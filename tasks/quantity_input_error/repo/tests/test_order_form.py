import pytest

from order_form import FormError, order_line, parse_quantity, parse_sku


def test_sku_is_upper_case_and_checked():
    assert parse_sku(" kt20b ") == "KT20B"
    with pytest.raises(FormError, match="not a product code"):
        parse_sku("kt-20")


def test_quantity_typed_with_spaces():
    assert parse_quantity(" 12 ") == 12


def test_quantity_out_of_range_is_a_form_error():
    for typed in ("0", "150", "-2"):
        with pytest.raises(FormError, match="from 1 to 99"):
            parse_quantity(typed)


def test_words_are_a_form_error():
    with pytest.raises(FormError, match="not a whole number"):
        parse_quantity("ten")


def test_decimals_are_a_form_error():
    with pytest.raises(FormError, match="not a whole number"):
        parse_quantity("2.5")


def test_order_line():
    assert order_line({"sku": "mug1", "quantity": "3"}) == {"sku": "MUG1", "quantity": 3}
