import pytest

from cart import Cart, Item

MUG = Item("MUG-01", 850)
TEA = Item("TEA-12", 499)


def test_restored_cart_keeps_its_items():
    cart = Cart("ann", [MUG, TEA])
    assert cart.count("MUG-01") == 1 and cart.total_cents() == 1349


def test_add_and_remove():
    cart = Cart("ann", [])
    cart.add(TEA, 2)
    assert cart.remove("TEA-12") is True
    assert cart.count("TEA-12") == 1
    assert cart.remove("MUG-01") is False


def test_quantity_must_be_positive():
    with pytest.raises(ValueError):
        Cart("ann", []).add(MUG, 0)


def test_a_new_cart_is_empty():
    first = Cart("ann")
    first.add(MUG)
    second = Cart("bob")
    assert second.items == []
    assert second.total_cents() == 0


def test_visitors_carts_are_separate():
    ann, bob = Cart("ann"), Cart("bob")
    ann.add(MUG, 3)
    bob.add(TEA)
    assert ann.count("MUG-01") == 3 and ann.count("TEA-12") == 0
    assert bob.total_cents() == 499
