"""The SQLite writer's statement texts: cached for small batches, never a growing pile of big ones."""

from __future__ import annotations

import tracemalloc

from interop.catalog import recorder


def test_statement_texts_for_big_batches_are_not_all_kept() -> None:
    """A text per row count was cached (256 of them): big batches of lorebook entries, each of a
    different size, kept ~0.8 MB texts alive for the life of the process."""
    values = recorder._sqlite_sql()["insert:lorebook_entries"]
    recorder._values_text.cache_clear()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for rows in range(5000, 5300):
            text = values.text(rows)
            assert text.count("(") == rows + 1  # the column list, then one group per row
        del text
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 8_000_000


def test_a_cached_statement_text_equals_a_fresh_one() -> None:
    values = recorder._sqlite_sql()["insert:lorebook_entries"]
    marks = "(" + ", ".join("?" * len(values.cols)) + ")"
    for rows in (1, 2, 7, 100, 3000):
        assert values.text(rows) == values.text(rows) == values.head + ", ".join([marks] * rows) + values.tail
