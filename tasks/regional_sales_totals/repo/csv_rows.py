"""Rows of the shop's sales export: 'region,product,amount' lines."""
from decimal import Decimal, InvalidOperation


def parse_sale(line):
    """(region, product, amount) from a line such as 'North, kettle, 24.99'; the region in lower case."""
    parts = [part.strip() for part in line.split(",")]
    if len(parts) != 3:
        raise ValueError(f"expected region,product,amount: {line!r}")
    region, product, amount = parts
    try:
        return region.lower(), product, Decimal(amount)
    except InvalidOperation:
        raise ValueError(f"not an amount: {amount!r}") from None


def sales(lines):
    """Every sale of the export, skipping blank lines and the header line."""
    return [parse_sale(line) for line in lines if line.strip() and not line.startswith("region,")]
