"""outer_loop (door to be written)."""
