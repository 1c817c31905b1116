from card_display import brand, digits_only, grouped, mask, receipt_line

VISA = "4000 0566 5566 5556"


def test_digits_only():
    assert digits_only("4000-0566 5566-5556") == "4000056655665556"


def test_brand():
    assert brand(VISA) == "Visa" and brand("5200 8282 8282 8210") == "Mastercard"
    assert brand("3782 822463 10005") == "American Express" and brand("6011 0000") == "Card"


def test_grouped():
    assert grouped("abcdefghij") == "abcd efgh ij"


def test_mask_shows_only_the_last_four_digits():
    assert mask(VISA) == "************5556"


def test_mask_keeps_the_length_of_a_fifteen_digit_card():
    assert mask("3782 822463 10005") == "*" * 11 + "0005"


def test_receipt_line():
    assert receipt_line(VISA) == "Visa **** **** **** 5556"
