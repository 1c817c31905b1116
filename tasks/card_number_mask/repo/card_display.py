"""How card numbers appear on receipts and on the account page: never in full."""


def digits_only(number):
    """The digits of a card number typed with spaces or dashes."""
    return "".join(ch for ch in number if ch.isdigit())


def brand(number):
    """The card network, from the first digits."""
    digits = digits_only(number)
    if digits.startswith("4"):
        return "Visa"
    if digits[:2] in {"51", "52", "53", "54", "55"}:
        return "Mastercard"
    if digits[:2] in {"34", "37"}:
        return "American Express"
    return "Card"


def mask(number):
    """The card number with every digit hidden but the last four."""
    digits = digits_only(number)
    return "*" * (len(digits) - 4) + digits[:4]


def grouped(text, size=4):
    """`text` in groups of `size` characters separated by spaces."""
    return " ".join(text[i:i + size] for i in range(0, len(text), size))


def receipt_line(number):
    """'Visa **** **** **** 1234', as the receipt prints the card."""
    return f"{brand(number)} {grouped(mask(number))}"
