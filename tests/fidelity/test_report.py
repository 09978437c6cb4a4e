"""fidelity_report: one fate per source field, computed from the data and the mapping tables."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from PIL import Image

from interop.api import read_bytes, write
from interop.appmodel.paths import render
from interop.containers.charx import write_charx
from interop.document import Document
from interop.errors import ConversionError, FormatError
from interop.fidelity import SCHEMA_VERSION, FidelityReport, Finding, fidelity_report
from interop.fidelity import hooks as hooks_module
from interop.fidelity import report as report_module
from interop.fidelity.container_diff import container_paths
from interop.fidelity.rules import RuleBook
from interop.fidelity.view import leaves, view_of
from interop.mappings import FATES, TargetRule
from interop.model import Card, Lorebook

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "fidelity-report.schema.json").read_text())


def card_doc(**extra_data: Any) -> Document:
    data = {
        "name": "Ilse",
        "description": "A captain.",
        "tags": ["sea"],
        "nickname": "Cap",
        "creation_date": 1700000000,
        "extensions": {"x_vendor": {"setting": True}},
        "character_book": {
            "name": "Harbour",
            "scan_depth": 4,
            "extensions": {},
            "entries": [
                {"keys": ["dock"], "content": "The docks.", "id": 1, "use_regex": False, "extensions": {"a": {"b": 1}}},
                {"keys": ["/tide/i"], "content": "Tides.", "id": "two", "use_regex": True, "x_unknown": [1, 2]},
            ],
        },
        **extra_data,
    }
    card = Card.model_validate({"spec": "chara_card_v3", "spec_version": "3.0", "data": data, "x_root": {"k": 1}})
    return Document(format="ccv3", card=card, source="ilse.json")


def book_doc() -> Document:
    book = Lorebook.model_validate({"name": "B", "entries": [{"keys": ["a"], "content": "A", "enabled": True}]})
    return Document(format="lorebook_v3", lorebook=book, source="b.json")


def expected_paths(doc: Document) -> set[str]:
    view = view_of(doc)
    return {render(p) for p in leaves(view)} | {render(p) for p in container_paths(view)}


def assert_accounts_once(doc: Document, report: FidelityReport) -> None:
    paths = [item.path for item in report.items]
    assert [p for p, n in Counter(paths).items() if n > 1] == []
    assert set(paths) == expected_paths(doc)
    assert sum(report.counts.values()) == len(report.items)


def test_contract_counts_items_json_and_losses() -> None:
    doc = card_doc()
    report = fidelity_report(doc, "ccv3")
    assert tuple(report.counts) == FATES
    assert report.counts["kept"] == len(report.items) and not report.has_losses
    item = report.items[0]
    assert (item.path, item.fate, item.detail) == ("root.x_root.k", "kept", "")
    data = report.to_json()
    assert data["schema_version"] == SCHEMA_VERSION
    jsonschema.validate(data, SCHEMA)
    assert_accounts_once(doc, report)


def test_paths_cover_root_card_book_entries_but_not_format_labels() -> None:
    paths = {item.path for item in fidelity_report(card_doc(), "ccv3").items}
    assert {
        "root.x_root.k",
        "card.name",
        "card.extensions.x_vendor.setting",
        "book.scan_depth",
        "book.extensions",
    } <= paths
    assert {"entry[0].extensions.a.b", "entry[1].x_unknown", "entry[1].keys", "entry[1].id"} <= paths
    assert not {p for p in paths if p.startswith(("root.spec", "card.character_book", "book.entries"))}


def test_v3_only_fields_are_stashed_going_to_v2() -> None:
    doc = card_doc()
    report = fidelity_report(doc, "ccv2")
    assert report.item("card.nickname").fate == "stashed"
    assert report.item("card.nickname").detail == "data.extensions.interop.data.nickname"
    assert report.item("card.creation_date").rule == "card.creation_date"
    assert report.item("card.name").fate == "kept"
    assert not report.has_losses
    assert_accounts_once(doc, report)


def test_a_card_written_as_a_lorebook_loses_the_character_with_the_tables_reason() -> None:
    doc = card_doc()
    report = fidelity_report(doc, "lorebook_v3")
    # issue 19 item 6: a card field has no place in a lorebook: not applicable, not lost
    assert report.item("card.name").fate == "not_applicable"
    assert report.item("card.name").detail == "a standalone lorebook holds no character"
    assert report.item("root.x_root.k").fate == "lost"  # no rule: the data decides
    assert report.item("root.x_root.k").detail == "not in the lorebook_v3 output"
    assert report.item("entry[1].x_unknown").fate == "kept"
    assert report.has_losses
    assert_accounts_once(doc, report)


def test_a_card_without_lorebook_cannot_become_one() -> None:
    doc = Document(format="ccv3", card=Card.model_validate({"spec": "chara_card_v3", "data": {"name": "X"}}))
    with pytest.raises(ConversionError):
        fidelity_report(doc, "lorebook_v3")
    with pytest.raises(FormatError):
        fidelity_report(doc, "no-such-format")


def test_given_output_bytes_are_used_not_rewritten() -> None:
    doc = card_doc()
    data = write(doc, "ccv3")
    tampered = json.loads(data)
    tampered["data"]["name"] = "Someone else"
    report = fidelity_report(doc, "ccv3", json.dumps(tampered).encode())
    item = report.item("card.name")
    assert item.fate == "lost"
    assert item.detail == 'came back changed: "Ilse" -> "Someone else" (the ccv3 mapping table says kept)'


class FakeRules(RuleBook):
    def __init__(self, target: str, rules: list[TargetRule]) -> None:
        super().__init__(target)
        self._rules = [(tuple(r.pattern.split(".")), r) for r in rules]


def test_fates_combine_data_and_table(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = [
        TargetRule("card.**", "lost", why="no character"),
        TargetRule("card.name", "kept"),
        TargetRule("card.description", "approximated", how="shown as a note"),
        TargetRule("book.name", "lost", why="the app drops it on import"),
        TargetRule("book.scan_depth", "stashed", where="extensions.x"),
        TargetRule("entry.keys", "translated", how="joined"),
    ]
    monkeypatch.setattr(report_module, "rule_book", lambda target, same=False, card=True: FakeRules(target, rules))
    report = fidelity_report(card_doc(), "lorebook_v3")
    # did not come back, the table says kept: the data wins
    assert report.item("card.name").fate == "lost"
    assert "mapping table says kept" in report.item("card.name").detail
    # did not come back, the table says approximated: approximated with its how
    assert (report.item("card.description").fate, report.item("card.description").detail) == (
        "approximated",
        "shown as a note",
    )
    # came back, but the table says the real application drops it
    assert (report.item("book.name").fate, report.item("book.name").detail) == ("lost", "the app drops it on import")
    assert (report.item("book.scan_depth").fate, report.item("book.scan_depth").detail) == ("stashed", "extensions.x")
    assert report.item("entry[0].keys").fate == "translated"
    assert report.item("entry[0].content").fate == "kept" and report.item("entry[0].content").rule is None


def test_hooks_can_only_make_a_fate_worse(monkeypatch: pytest.MonkeyPatch) -> None:

    def hook(source: Document, target: str, output: Document | None) -> list[Finding]:
        assert output is not None and output.format == "agnai-book"
        return [
            Finding(("entry", 0, "keys"), "approximated", "the app mangles 'dock'"),
            Finding(("entry", 0, "content"), "kept", "cannot improve"),
            Finding(("card", "name"), "approximated", "cannot improve lost either"),
            Finding(("entry", 9, "keys"), "lost", "no such entry"),
        ]

    monkeypatch.setattr(hooks_module, "_HOOKS", {"agnai": [hook]})
    report = fidelity_report(card_doc(), "agnai-book")
    assert (report.item("entry[0].keys").fate, report.item("entry[0].keys").detail) == (
        "approximated",
        "the app mangles 'dock'",
    )
    assert report.item("entry[0].content").fate == "kept"
    assert report.item("card.name").fate == "not_applicable"  # no app can do anything with it
    assert any("entry[9].keys" in w for w in report.warnings)


def test_same_platform_keeps_what_the_table_calls_approximated() -> None:
    # Written by Agnai and read by Agnai again: the regex key and the constant
    # behave as they did in the source (the same app), so nothing is approximated.
    agnai = read_bytes(write(card_doc(), "agnai-book"), filename="book.json")
    assert agnai.format == "agnai-book"
    report = fidelity_report(agnai, "agnai-book")
    assert report.item("entry[1].keys").fate == "kept"
    assert report.item("entry[0].constant") is None or report.item("entry[0].constant").fate == "kept"
    assert not [i for i in report.items if i.fate == "approximated"]
    # ... while a CCv3 source going to Agnai is approximated there.
    assert fidelity_report(card_doc(), "agnai-book").item("entry[1].keys").fate in ("approximated", "lost")


def test_agnai_key_hazards_mark_regex_keys() -> None:
    report = fidelity_report(card_doc(), "agnai-book")
    keys = report.item("entry[1].keys")
    assert keys.fate in ("approximated", "lost")
    assert "/tide/i" in keys.detail
    assert report.item("entry[0].keys").fate == "kept"


def _png(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, format="PNG")
    return out.getvalue()


def test_picture_kept_in_png_and_in_json_unless_left_out() -> None:
    png = write(card_doc(), "png", image=_png((200, 10, 10)))
    doc = read_bytes(png, filename="card.png")
    assert doc.image is not None
    to_png = fidelity_report(doc, "png")
    assert to_png.item("image").fate == "kept"  # card chunks rewritten, pixels identical
    to_json = fidelity_report(doc, "ccv3")  # the main icon's data URL (issue 19 item 5)
    assert to_json.item("image").fate == "translated" and "data:image/png" in to_json.item("image").detail
    assert_accounts_once(doc, to_json)
    left_out = fidelity_report(doc, "ccv3", write(doc, "ccv3", embed_picture=False))
    assert (left_out.item("image").fate, left_out.item("image").detail) == ("lost", "ccv3 holds no picture")


def test_embedded_assets_and_members_are_checked_by_bytes() -> None:
    icon = _png((1, 2, 3))
    uri = "embeded://assets/icon/images/main.png"
    card = card_doc(assets=[{"type": "icon", "uri": uri, "name": "main", "ext": "png"}]).card
    members = {"assets/icon/images/main.png": icon, "x_app/data.json": b'{"app": 1}'}
    doc = read_bytes(write_charx(json.dumps(card.dump()).encode(), members), filename="ilse.charx")
    assert doc.assets == {uri: icon} and "x_app/data.json" in doc.members
    to_json = fidelity_report(doc, "ccv3")
    asset = to_json.item(f'asset["{uri}"]')
    assert asset.fate == "lost" and "no embedded asset files" in asset.detail
    assert to_json.item("card.assets[0]").fate == "kept"  # the descriptor survives, the file does not
    assert to_json.item('member["x_app/data.json"]').fate == "lost"
    assert_accounts_once(doc, to_json)
    to_charx = fidelity_report(doc, "charx")
    assert to_charx.item(f'asset["{uri}"]').fate == "kept"
    assert to_charx.item('member["x_app/data.json"]').fate == "kept"
    assert not to_charx.has_losses


def test_lorebook_source_to_card_target_reports_only_book_fields() -> None:
    doc = book_doc()
    report = fidelity_report(doc, "ccv3")
    assert {i.path for i in report.items} == {"book.name", "entry[0].keys", "entry[0].content", "entry[0].enabled"}
    assert not report.has_losses


def test_each_entry_gets_its_own_fates() -> None:
    # Entries share item templates; a field lost in entry 1 only must not borrow entry 0's fate.
    book = Lorebook.model_validate(
        {"entries": [{"keys": ["a"], "case_sensitive": True}, {"keys": ["b"], "case_sensitive": True}, {"keys": ["c"]}]}
    )
    doc = Document(format="lorebook_v3", lorebook=book)
    data = json.loads(write(doc, "lorebook_v3"))
    del data["data"]["entries"][1]["case_sensitive"]
    data["data"]["entries"][2]["keys"] = ["C"]
    report = fidelity_report(doc, "lorebook_v3", json.dumps(data).encode())
    assert report.item("entry[0].case_sensitive").fate == "kept"
    assert report.item("entry[1].case_sensitive").fate == "lost"
    assert report.item("entry[1].keys").fate == "kept"
    assert report.item("entry[2].keys").fate == "lost"
    assert report.item("entry[0].keys").fate == "kept"


def test_asset_descriptor_that_follows_its_file_is_translated() -> None:
    # PNG -> CHARX: the picture becomes the main icon member, and the
    # ccdefault: descriptor is rewritten to point at it.
    card = card_doc(assets=[{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}])
    doc = read_bytes(write(card, "png", image=_png((9, 9, 9))), filename="ilse.png")
    report = fidelity_report(doc, "charx")
    image, descriptor = report.item("image"), report.item("card.assets[0]")
    assert image.fate == "translated" and image.detail.startswith("now asset embeded://")
    assert descriptor.fate == "translated"
    assert descriptor.detail == f"uri now {image.detail.removeprefix('now asset ')} (the file moved with it)"


def test_sillytavern_hazards_map_flat_key_conflicts_to_fields() -> None:
    from interop.fidelity.hooks import findings

    book = Lorebook.model_validate(
        {
            "entries": [
                {"keys": ["a"], "content": "A"},
                {
                    "keys": ["b"],
                    "case_sensitive": True,
                    "extensions": {"case_sensitive": False, "depth": 2, "sillytavern": {"entry": {"depth": 5}}},
                },
            ]
        }
    )
    found = {f.path: f for f in findings(Document(format="lorebook_v3", lorebook=book), "x", "sillytavern", None)}
    assert set(found) == {("entry", 1, "extensions", "sillytavern", "entry", "depth"), ("entry", 1, "case_sensitive")}
    assert all(
        f.fate == "approximated" and f.detail.startswith("SillyTavern reads its flat key") for f in found.values()
    )


def test_write_only_target_is_read_back_by_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from interop.platform import registry

    # A SillyTavern card is V2 JSON: without its own reader it is read back as ccv2.
    st_card = registry.get_format("sillytavern-card")
    monkeypatch.setitem(registry._FORMATS, "sillytavern-card", dataclasses.replace(st_card, read=None))
    report = fidelity_report(card_doc(), "sillytavern-card")
    assert report.verified and not report.warnings
    assert report.item("card.name").fate == "kept"


def test_unreadable_output_falls_back_to_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from interop.platform import registry

    ccv2 = registry.get_format("ccv2")
    opaque = dataclasses.replace(ccv2, read=None, write=lambda doc, ctx: b"\x00opaque")
    monkeypatch.setitem(registry._FORMATS, "ccv2", opaque)
    report = fidelity_report(card_doc(), "ccv2")
    assert not report.verified
    assert report.item("card.nickname").fate == "stashed"  # the table's word
    assert report.item("root.x_root.k").fate == "lost"  # no rule, nothing to check
    assert any("cannot be read back" in w for w in report.warnings)
    jsonschema.validate(report.to_json(), SCHEMA)


def test_a_picture_embedded_as_a_data_url_is_named_by_type_and_size_not_spelled_out() -> None:
    # PNG -> ccv3 keeps the picture as a data URL asset (issue 19 item 5); the report must not
    # print the megabytes of base64 (a 4 MB card made a 5 MB terminal line).
    card = card_doc(assets=[{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}])
    doc = read_bytes(write(card, "png", image=_png((9, 9, 9))), filename="ilse.png")
    report = fidelity_report(doc, "ccv3")
    image, descriptor = report.item("image"), report.item("card.assets[0]")
    assert image.fate == "translated" and descriptor.fate == "translated"
    for detail in (image.detail, descriptor.detail):
        assert "data:image/png;base64,... (" in detail and " characters)" in detail
        assert "iVBOR" not in detail  # no base64 PNG signature: the payload itself is not shown


def _plain_counts(report: FidelityReport) -> dict[str, int]:
    counts = dict.fromkeys(FATES, 0)
    for item in report.items:
        counts[item.fate] += 1
    return counts


@pytest.mark.parametrize("target", ["ccv3", "lorebook_v3", "png", "sillytavern-world", "risu-lorebook"])
def test_shared_items_give_the_same_counts_and_json_text_as_the_items_themselves(target: str) -> None:
    """A report shares its all-kept items (and their JSON) with every report of a source of the same shape
    (``report._base_items``): a second source of that shape, a changed item, an item added after them."""
    png = write(card_doc(), "png", image=_png((9, 9, 9)))
    for doc in (card_doc(), card_doc(description="Another captain."), read_bytes(png, filename="c.png")):
        report = fidelity_report(doc, target)
        for _ in range(3):
            assert report.counts == _plain_counts(report)
            text = report.to_json_text()
            assert json.loads(text) == json.loads(json.dumps(report.to_json()))
            if report_module.orjson is not None:  # byte for byte what the plain dicts give
                assert text == report_module.orjson.dumps(report.to_json(), default=str).decode()
            assert report.has_losses == (
                report.counts["lost"] + report.counts["approximated"] > 0 or report.app_losses > 0
            )
            if report.items[0].fate == "kept":
                report.items[0] = report.items[0]._replace(fate="lost", detail="changed by a later step")
            else:
                report.items.append(report.items[0]._replace(path="extra", fate="lost"))
        assert '"changed by a later step"' in report.to_json_text() or '"extra"' in report.to_json_text()
