"""The monthly sales report: the total of each region and the best-selling product."""
from collections import Counter
from decimal import Decimal

from csv_rows import sales


def region_total(lines, region):
    """The amount sold in `region` (any case)."""
    wanted = region.lower()
    for sale_region, _, amount in sales(lines):
        total = Decimal("0.00")
        if sale_region == wanted:
            total += amount
    return total


def best_seller(lines):
    """The product sold most often, or None for an empty export."""
    counts = Counter(product for _, product, _ in sales(lines))
    return counts.most_common(1)[0][0] if counts else None


def report(lines, regions):
    """One 'region: total' line per region, then the best seller."""
    rows = [f"{region}: {region_total(lines, region)}" for region in regions]
    return "\n".join(rows + [f"best seller: {best_seller(lines)}"])
