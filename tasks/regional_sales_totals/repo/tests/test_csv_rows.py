from decimal import Decimal

import pytest

from csv_rows import parse_sale, sales


def test_parse_sale():
    assert parse_sale("North, kettle, 24.99") == ("north", "kettle", Decimal("24.99"))


def test_a_bad_line_is_refused():
    with pytest.raises(ValueError):
        parse_sale("north,kettle")
    with pytest.raises(ValueError, match="not an amount"):
        parse_sale("north,kettle,lots")


def test_sales_skip_the_header_and_blank_lines():
    assert len(sales(["region,product,amount", "north,mug,8.00", "", "south,mug,8.00"])) == 2
