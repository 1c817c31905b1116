"""models (door to be written)."""
