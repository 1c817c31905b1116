from export import batches, export_lines

ORDERS = [{"id": n, "total": f"{n}.00"} for n in range(1, 26)]  # 25 orders


def test_exact_multiple_makes_full_batches():
    assert batches(list(range(20)), 10) == [list(range(10)), list(range(10, 20))]


def test_remainder_gets_its_own_batch():
    assert [len(batch) for batch in batches(list(range(25)), 10)] == [10, 10, 5]


def test_export_writes_every_order():
    lines = export_lines(ORDERS, 10)
    assert [line for line in lines if not line.startswith("#")] == [f"{n},{n}.00" for n in range(1, 26)]
    assert lines.count("# batch 3") == 1
