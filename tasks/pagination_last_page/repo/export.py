"""The nightly export: every order written out, in batches of a fixed size."""


def batches(rows, size):
    """Split `rows` into consecutive lists of at most `size` rows, keeping their order."""
    if size < 1:
        raise ValueError("size must be at least 1")
    count = len(rows) // size
    return [rows[i * size:(i + 1) * size] for i in range(count)]


def export_lines(orders, size):
    """One "id,total" line per order, with a header line before each batch."""
    lines = []
    for number, batch in enumerate(batches(orders, size), start=1):
        lines.append(f"# batch {number}")
        lines.extend(f"{order['id']},{order['total']}" for order in batch)
    return lines
