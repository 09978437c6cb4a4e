"""Files carrying the same card: every asset use (card, role, URI) comes from the first file in input order
that has it (the first file's picture; assets only a later file embeds are added), whatever the batches.

The recorder used to take a card's picture and assets from the transaction that created the card,
choosing inside a batch the first file in SHA-256 order: which picture was kept, and whether
v3_assets.png's assets were there at all, depended on where the time-based flush cut the batches.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from interop.catalog.database import open_catalog
from interop.catalog.models import AssetBlob, Card, CardAsset
from interop.catalog.pipeline import FileOutcome, RunConfig, process_file
from interop.catalog.recorder import BatchRecorder

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "png"
# One card each (equal content hash), pictures and embedded assets differing; the first has no
# assets and v3_assets.png has two, so a batch that lets a later file win changes card_assets.
SAME_CARD = ["v3_apng.png", "v3_assets.png", "v3_both_st_order.png", "v3_ccv3_only.png", "v3_itxt.png"]
PICTURES = ["v2_chara_only.png", "v2_foreign_text_gama.png", "v2_uppercase_chara.png"]


def _outcomes(tmp_path: Path, names: list[str]) -> list[FileOutcome]:
    config = RunConfig(targets=("ccv3",), out_dir=tmp_path / "out", data_dir=tmp_path / "data")
    outcomes = [process_file(config, CORPUS / n) for n in names]
    assert all(o.status == "imported" and o.item and o.item.card for o in outcomes)
    assert len({o.item.card.content_hash for o in outcomes if o.item and o.item.card}) == 1
    return outcomes


def _assets_recorded(url: str, outcomes: list[FileOutcome], max_files: int) -> list[tuple[str, str, str]]:
    catalog = open_catalog(url)
    # no time limit: the batches are cut by count alone, so every cut is tried deterministically
    recorder = BatchRecorder(catalog, max_files=max_files, max_seconds=float("inf"), background=False)
    for outcome in outcomes:
        recorder.add(outcome)
    recorder.flush()
    recorder.close()
    with catalog.session() as s:
        assert s.scalar(select(Card.id).limit(2).offset(1)) is None  # one card row
        joined = select(CardAsset, AssetBlob).join(AssetBlob, AssetBlob.id == CardAsset.asset_id)
        rows = sorted((link.role, link.uri, blob.sha256) for link, blob in s.execute(joined))
    catalog.dispose()
    return rows


@pytest.mark.parametrize("names", [SAME_CARD, PICTURES, SAME_CARD[::-1], PICTURES[::-1]])
def test_a_shared_cards_assets_come_from_the_first_file_having_each_whatever_the_batches(
    tmp_path: Path, names: list[str]
) -> None:
    outcomes = _outcomes(tmp_path, names)
    first: dict[tuple[str, str], str] = {}
    for o in outcomes:
        for a in o.item.card.assets if o.item and o.item.card else ():
            first.setdefault((a.role, a.uri), a.sha256)
    expected = sorted((role, uri, sha) for (role, uri), sha in first.items())
    assert len(expected) == (3 if names[0].startswith("v3") else 1)  # v3_assets.png's two assets are kept
    for max_files in range(1, len(names) + 1):
        url = f"sqlite:///{tmp_path / f'cat{max_files}.sqlite'}"
        assert _assets_recorded(url, outcomes, max_files) == expected, f"batches of {max_files}"


@pytest.mark.postgres
def test_a_shared_cards_assets_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    outcomes = _outcomes(tmp_path, SAME_CARD)
    first = outcomes[0].item.card if outcomes[0].item else None
    assert first is not None
    assets = outcomes[1].item.card.assets if outcomes[1].item and outcomes[1].item.card else []
    expected = sorted([(a.role, a.uri, a.sha256) for a in first.assets + [a for a in assets if a.role == "asset"]])
    assert _assets_recorded(pg_url, outcomes, 1) == expected  # each file its own batch: added to the known card
