"""fixing (door to be written)."""
