"""Issue 11 item 12: every place that shows a card's name upgrades a V1 card first.

A TavernAI V1 card keeps ``name`` at its root (no ``spec``, no ``data``), so
code reading ``card.data.name`` saw nothing: ``inspect`` printed no name or
spec and the catalog listed "(unnamed)". All of them go through
``interop.model.versions.as_displayed`` / ``spec_label`` now. Samples: the
real V1 PNG and JSON of SillyTavern's old default character (shared corpus),
and a faithful flat V1 PNG built here (``tEXt chara`` = base64 of a flat V1
object, as TavernAI wrote them).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import interop
from interop.catalog.records import item_record
from interop.cli import cli
from interop.model.versions import V1_LABEL, as_displayed, spec_label
from tests.conftest import SHARED_CORPUS
from tests.png_bytes import chunk, solid_png, with_chunks

WALTER = {
    "name": "Walter White",
    "description": "A chemistry teacher.",
    "personality": "meticulous",
    "scenario": "Albuquerque, 2008.",
    "first_mes": "Say my name.",
    "mes_example": "<START>\n{{char}}: I am the one who knocks.",
    "creator": "someone",
    "tags": ["drama"],
}
REAL_V1 = ("cards-png/st_old_Megumin_v1.png", "cards-json/st_old_Megumin_v1.json", "cards-png/risu_sample_rika.png")


@pytest.fixture
def walter_png(tmp_path: Path) -> Path:
    payload = base64.b64encode(json.dumps(WALTER).encode())
    path = tmp_path / "walter.png"
    path.write_bytes(with_chunks(solid_png((8, 8), (10, 20, 30)), chunk(b"tEXt", b"chara\x00" + payload)))
    return path


def _real(rel: str) -> Path:
    path = SHARED_CORPUS / rel
    if not path.is_file():
        pytest.skip(f"shared corpus file {rel} not found")
    return path


def test_helper_upgrades_v1_and_leaves_other_cards_alone(walter_png: Path) -> None:
    doc = interop.read(walter_png)
    assert doc.card is not None and doc.card.spec is None
    assert as_displayed(doc.card).data.name == "Walter White"
    assert spec_label(doc.card) == V1_LABEL
    v3 = interop.read_bytes(interop.write(doc, "ccv3")).card
    assert v3 is not None and as_displayed(v3) is v3 and spec_label(v3) == "chara_card_v3"


@pytest.mark.parametrize("rel", REAL_V1)
def test_real_v1_cards_have_a_title(rel: str) -> None:
    doc = interop.read(_real(rel))
    assert doc.title in ("Megumin", "Rika")


def test_v1_written_by_interop_shows_the_stashed_cards_name_and_book() -> None:
    path = Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3.json"
    doc = interop.read_bytes(interop.write(interop.read(path), "ccv1"))
    assert doc.format == "ccv1"
    assert doc.title == json.loads(path.read_text())["data"]["name"]
    assert doc.book is not None and len(doc.book.entries) == len(
        json.loads(path.read_text())["data"]["character_book"]["entries"]
    )


def test_inspect_shows_name_and_spec(walter_png: Path) -> None:
    paths = [str(walter_png)] + [str(_real(r)) for r in REAL_V1 if (SHARED_CORPUS / r).is_file()]
    result = CliRunner().invoke(cli, ["inspect", "--json", *paths], catch_exceptions=False)
    infos = json.loads(result.output)
    assert (infos[0]["name"], infos[0]["spec"]) == ("Walter White", "v1")
    # RisuAI's sample also carries its legacy risuai chunk, read as RisuAI read it: a V3 card (issue 19 item 1).
    assert all(
        i["name"] in ("Walter White", "Megumin", "Rika") and i["spec"] == "v1" for i in infos if i["name"] != "Rika"
    )
    text = CliRunner().invoke(cli, ["inspect", str(walter_png)], catch_exceptions=False).output
    assert "Walter White" in text and "spec             v1" in text


def test_catalog_record_names_a_v1_card(walter_png: Path) -> None:
    record = item_record(interop.read(walter_png)).card
    assert record is not None
    assert (record.name, record.spec) == ("Walter White", "v1")


def test_catalog_list_search_and_migrate_names(walter_png: Path, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'c.sqlite'}"
    out = tmp_path / "out"
    src = walter_png.parent / "in"
    src.mkdir()
    walter_png.rename(src / "walter.png")
    run = CliRunner().invoke(cli, ["migrate", str(src), "--to", "ccv3", "--out", str(out), "--db", db])
    assert run.exit_code == 0, run.output
    listed = json.loads(CliRunner().invoke(cli, ["catalog", "list", "--db", db, "--json"]).stdout)
    assert [i["name"] for i in listed] == ["Walter White"]
    assert "(unnamed)" not in CliRunner().invoke(cli, ["catalog", "list", "--db", db]).stdout
    written = [p.name for p in (out / "ccv3").iterdir()]
    assert len(written) == 1 and written[0].lower().startswith("walter")
