"""The order form: turning what a customer typed into a validated order line."""

MAX_QUANTITY = 99


class FormError(Exception):
    """Input the customer must correct; the message is shown under the field."""


def parse_sku(text):
    """A product code: letters and digits, shown in upper case."""
    sku = text.strip().upper()
    if not sku.isalnum():
        raise FormError(f"{text.strip()!r} is not a product code")
    return sku


def parse_quantity(text):
    """The quantity typed into the form, as a whole number from 1 to MAX_QUANTITY."""
    try:
        quantity = int(text.strip())
    except TypeError:
        raise FormError(f"{text.strip()!r} is not a whole number") from None
    if not 1 <= quantity <= MAX_QUANTITY:
        raise FormError(f"the quantity must be from 1 to {MAX_QUANTITY}")
    return quantity


def order_line(form):
    """{"sku", "quantity"} from the submitted form fields; FormError for the first bad one."""
    return {"sku": parse_sku(form.get("sku", "")), "quantity": parse_quantity(form.get("quantity", ""))}
