"""The read side's fast paths (catalog rows, digests, detection) give what the general path gives."""

from __future__ import annotations

from interop.api import read_bytes, write
from interop.catalog.records import Digests, blobs_of, item_record, sha256_hex
from interop.document import Document
from tests.catalog.samples import make_card
from tests.png_bytes import solid_png


def _png_card() -> bytes:
    card = make_card("Pictured", book_entries=3, seed=2)
    return write(Document(format="ccv3", card=card), "png", image=solid_png((6, 5), (10, 20, 30)))


def test_shared_digests_give_the_rows_and_blobs_of_separate_hashing() -> None:
    data = _png_card()
    doc = read_bytes(data, filename="pictured.png")
    assert doc.image is data  # what makes the input's hash reusable
    digests = Digests((data, sha256_hex(data)))
    assert item_record(doc, digests) == item_record(doc)
    assert blobs_of(doc, digests) == blobs_of(doc)


def test_a_seeded_digest_is_what_the_rows_use() -> None:
    """The fast path is taken (the test above could not tell a cache that is never consulted)."""
    data = _png_card()
    doc = read_bytes(data, filename="pictured.png")
    wrong = Digests((data, "0" * 64))
    record = item_record(doc, wrong).card
    assert record is not None
    assert [a.sha256 for a in record.assets if a.role == "image"] == ["0" * 64]
    assert "0" * 64 in blobs_of(doc, wrong)
