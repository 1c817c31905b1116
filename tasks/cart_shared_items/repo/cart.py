"""Shopping carts for the web shop: one per visitor, kept in memory until checkout."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    sku: str
    price_cents: int


class Cart:
    """A visitor's cart: the items in the order they were added (a restored session passes
    the items it saved)."""

    def __init__(self, owner, items=[]):
        self.owner = owner
        self.items = items

    def add(self, item, quantity=1):
        """Put `quantity` of `item` in the cart."""
        if quantity < 1:
            raise ValueError("quantity must be at least 1")
        self.items.extend([item] * quantity)

    def remove(self, sku):
        """Take one item with this SKU out; False when there is none."""
        for index, item in enumerate(self.items):
            if item.sku == sku:
                del self.items[index]
                return True
        return False

    def count(self, sku):
        """How many items with this SKU are in the cart."""
        return sum(item.sku == sku for item in self.items)

    def total_cents(self):
        return sum(item.price_cents for item in self.items)
