"""The report's fast SillyTavern verdict equals the model spelled out (issue 19, speed).

``card_entry_settings`` is ``_from_card_entry`` (``convertCharacterBook``, public/scripts/world-info.js)
with the JavaScript ``||``/``??``/truthiness inlined; ``_findings(fast=True)`` counts an entry whose
settings came back identical at once; the report's read-back leaves its JSON parse to the app
models; the app models of a pair of platforms are kept while the registry holds the same platforms.
"""

from __future__ import annotations

import copy
import itertools
import json
import marshal
from typing import Any

import pytest

from interop import api
from interop.appmodel.card_book import parse_output
from interop.fidelity import apps as fidelity_apps
from interop.fidelity.report import fidelity_report
from interop.formats.sillytavern import app_load as st
from interop.formats.sillytavern import app_model as sillytavern_check
from interop.jsonio import loads
from interop.memo import document_scope
from interop.platform.registry import Platform, register_platform, unregister_platform
from tests.conftest import shared_files
from tests.st_exporter import ST_FLAT_KEYS
from tests.validator import refusal

TARGETS = ("ccv3", "ccv2", "png", "charx", "character_book", "lorebook_v3", "sillytavern-card", "sillytavern-world")
FILES = [p for p in shared_files(".") if p.name != "MANIFEST.tsv"][:20]


def _strict(value: Any) -> bytes:
    """Equal bytes = equal values of equal types in the same key order (1, 1.0 and true apart)."""
    return marshal.dumps(value, 2)


# Values whose JavaScript truthiness, nullishness or type the converter tells apart.
ODD_VALUES: list[Any] = [None, [], {}, 0, 0.0, "", False, True, 1, 2.5, "x", ["k"], {"a": 1}, float("nan")]
TOP_KEYS = ("keys", "secondary_keys", "comment", "content", "constant", "selective", "insertion_order",
            "position", "enabled", "id")
EXT_KEYS = ("position", "display_index", "triggers", *(flat for flat, _ in st.FLAT_READS.values()))


def _odd_entries() -> list[dict[str, Any]]:
    """Card entries with each read key absent or set to each odd value, and one with every flat key."""
    out: list[dict[str, Any]] = [{}, {"extensions": None}, {"extensions": []}, {"extensions": {}}]
    for key, value in itertools.product(TOP_KEYS, ODD_VALUES):
        out.append({key: value, "extensions": {"position": value}})
    for key, value in itertools.product(EXT_KEYS, ODD_VALUES):
        out.append({"keys": ["k"], "extensions": {key: value}})
    out.append({"extensions": {flat: None for flat, _ in st.FLAT_READS.values()}})
    out.append({"position": "before_char", "extensions": {flat: 7 for flat, _ in st.FLAT_READS.values()}})
    return out


@pytest.mark.parametrize("entry", _odd_entries())
def test_card_entry_settings_equals_the_spelled_out_converter(entry: dict[str, Any]) -> None:
    for index, uid in ((0, 0), (3, "x"), (5, None)):
        fast = st.card_entry_settings(entry, index, uid)
        assert _strict(fast) == _strict(st._from_card_entry(entry, index, uid)), (entry, index, uid)
        values = st.card_entry_values(entry, index, uid)
        assert _strict(values) == _strict(tuple(fast[name] for name in st.CARD_READS)), (entry, index, uid)


def test_card_reads_are_what_the_converter_sets() -> None:
    """Every compared setting outside ``CARD_READS`` keeps the template's value (or is absent)."""
    entry = {"keys": ["k"], "comment": "c", "extensions": {flat: 7 for flat, _ in st.FLAT_READS.values()}}
    converted = st._from_card_entry(entry, 0, 0)
    for name in sillytavern_check._NAMES_WITH_COMMENT:
        if name not in st.CARD_READS:
            assert _strict(converted.get(name)) == _strict(st.TEMPLATE.get(name)), name


def test_card_uids_are_convert_character_books() -> None:
    """``convertCharacterBook`` gives an entry without ``id`` the lowest number no id takes."""
    entries = [{"id": 1}, {}, {"id": "0"}, {}, {"id": 3}]
    assert st.card_uids(entries) == [1, 2, "0", 4, 3]
    assert [e["uid"] for e in st.convert_character_book({"entries": entries})] == [1, 2, "0", 4, 3]
    assert st.card_uids([{"id": 5}, {"id": "a"}]) == [5, "a"]


def _outputs() -> list[tuple[Any, str, bytes]]:
    pairs = []
    for path in FILES:
        doc = api.read(path)
        if doc.book is None:
            continue
        for target in TARGETS:
            if refusal(doc, target) is None and target != doc.format:
                pairs.append((doc, target, api.write(doc, target)))
    return pairs


def _edited(data: bytes) -> bytes | None:
    """``data`` (a JSON card or book) with its first entry's settings changed: findings to compare."""
    try:
        obj, via = parse_output(data)
    except Exception:
        return None
    if via != "JSON" or not isinstance(obj, dict):
        return None
    obj = copy.deepcopy(obj)
    book = obj.get("data", {}).get("character_book") if isinstance(obj.get("data"), dict) else None
    book = book if isinstance(book, dict) else (obj.get("data") if obj.get("spec") == "lorebook_v3" else obj)
    entries = book.get("entries") if isinstance(book, dict) else None
    if isinstance(entries, dict):  # a world file
        entries = list(entries.values())
    if not entries:
        return None
    first = entries[0]
    for key in ("insertion_order", "order", "constant", "selective", "depth"):
        if key in first:
            first[key] = 1.0 if isinstance(first[key], int) and not isinstance(first[key], bool) else None
    first.pop("id", None)
    first.pop("enabled", None)
    ext = first.get("extensions")
    if isinstance(ext, dict):
        ext["probability"], ext["depth"] = 50, None
    return json.dumps(obj).encode()


def _verdict(source: Any, data: bytes, target: str, *, fast: bool) -> dict[str, Any]:
    with document_scope():  # as migrate runs it: the plan is memoized
        return sillytavern_check._findings(source, data, target, fast=fast).to_json()


@pytest.mark.parametrize(("source", "target", "data"), _outputs(), ids=lambda v: getattr(v, "source", None))
def test_fast_verdict_equals_the_general_one(source: Any, target: str, data: bytes) -> None:
    general = _verdict(source, data, target, fast=False)
    assert _verdict(source, data, target, fast=True) == general
    assert sillytavern_check._findings(source, data, target, fast=True).to_json() == general  # no scope
    edited = _edited(data)
    if edited is not None:
        general = _verdict(source, edited, target, fast=False)
        assert _verdict(source, edited, target, fast=True) == general


WORLD_WITH_FILTER = {
    "entries": {
        "0": {"uid": 0, "key": ["dock"], "content": "The docks.", "comment": "Docks", "displayIndex": 3,
              "characterFilter": {"isExclude": False, "names": ["Ann"], "tags": []}},
        "1": {"uid": 1, "key": ["inn"], "content": "An inn.", "characterFilter": {"names": [], "tags": []},
              "depth": 2.5},
        "2": {"uid": 2, "key": ["gate"], "content": "A gate.", "order": 5},
    }
}


@pytest.mark.parametrize("target", ["ccv3", "lorebook_v3", "png", "sillytavern-card", "sillytavern-world"])
def test_fast_verdict_on_settings_the_card_cannot_hold(target: str) -> None:
    """A character filter (never read by the card import), a float and a display index: the fast
    path sends those entries to the general comparison, with the same findings."""
    source = api.read_bytes(json.dumps(WORLD_WITH_FILTER).encode(), filename="w.json")
    data = api.write(source, target)
    general = _verdict(source, data, target, fast=False)
    assert _verdict(source, data, target, fast=True) == general
    if target != "sillytavern-world":
        assert any("characterFilter" in f["path"] or "character filter" in f["detail"] for f in general["findings"])


def test_an_edited_output_has_findings() -> None:
    """The comparison above is not vacuous: an edited entry is found by both paths."""
    found = 0
    for source, target, data in _outputs()[:20]:
        edited = _edited(data)
        if edited is not None:
            found += bool(_verdict(source, edited, target, fast=True)["findings"])
    assert found > 0


def test_the_read_back_parse_is_the_app_models_and_is_left_unchanged() -> None:
    """In a scope the app model reads the JSON the report's read-back parsed; after the whole report
    that value still equals a fresh parse of the output (nothing wrote into it)."""
    checked = 0
    for source, target, data in _outputs():
        if data[:1] != b"{":
            continue
        alone = fidelity_report(source, target, data).to_json()
        with document_scope():
            assert fidelity_report(source, target, data).to_json() == alone
            shared, via = parse_output(data)
            assert via == "JSON"
            assert _strict(shared) == _strict(loads(data)), (source.source, target)
        with document_scope():
            doc = fidelity_apps.read_output(data, target, source.source)
            assert doc is not None
            assert parse_output(data)[0] is parse_output(data)[0]  # the memo answers, no second parse
        checked += 1
    assert checked > 0


def test_app_models_follow_the_registry() -> None:
    """A platform registered or removed changes which app judges: the kept answer is not reused."""
    sample = Platform(name="sample-judge", title="Sample", generic=True)
    before = fidelity_apps._models_for("ccv3", "ccv3")
    assert list(before) == [
        fidelity_apps.get_platform(a).app_check for a in fidelity_apps.apps_for("ccv3", "ccv3")
    ]
    register_platform(sample)
    try:
        assert fidelity_apps._models_for("ccv3", "ccv3") == tuple(
            fidelity_apps.get_platform(a).app_check for a in fidelity_apps.apps_for("ccv3", "ccv3")
        )
    finally:
        unregister_platform("sample-judge")
    assert fidelity_apps._models_for("ccv3", "ccv3") == before


def test_a_changed_registry_is_seen() -> None:
    """A generic target whose judging app is removed: no verdict from the kept models."""
    judge = Platform(name="sample-st-like", title="Sample", app_check=sillytavern_check.MODEL)
    register_platform(judge)
    try:
        with_judge = fidelity_apps._models_for("sample-st-like", "ccv3")
        assert with_judge == (sillytavern_check.MODEL,)
    finally:
        unregister_platform("sample-st-like")
    assert fidelity_apps._models_for("sample-st-like", "ccv3") == ()


# --- the book check: every entry of a card book at once (_BookCheck) ------------------------

EXPORTED_AT: dict[str, tuple[bool, str]] = {
    "uid": (False, "id"), "key": (False, "keys"), "keysecondary": (False, "secondary_keys"),
    "comment": (False, "comment"), "content": (False, "content"), "constant": (False, "constant"),
    "selective": (False, "selective"), "order": (False, "insertion_order"), "disable": (False, "enabled"),
    **{field: (True, flat) for field, flat, _ in ST_FLAT_KEYS},
}
"""Where SillyTavern's exporter (convertWorldInfoToCharacterBook) writes each setting (tests/st_exporter.py)."""


def _exported(want: dict[str, Any]) -> dict[str, Any]:
    """A world entry as ``convertWorldInfoToCharacterBook`` writes it into a card."""
    entry: dict[str, Any] = {"position": "before_char" if want["position"] == 0 else "after_char", "extensions": {}}
    for name, (in_ext, key) in EXPORTED_AT.items():
        value = want.get(name)
        (entry["extensions"] if in_ext else entry)[key] = (not value) if name == "disable" else value
    return entry


def _each_settled(plan: Any, entries: list[Any]) -> bool:
    """What ``_findings`` finds entry by entry: every entry's ``_Check`` holds."""
    card = st.card_entries({"entries": entries})
    if len(card) != len(entries) or len(card) != len(plan.settings):
        return False
    uids = st.card_uids(card)
    return all(
        key is not None and sillytavern_check._identical_to(
            key, wants, tuple(map(st.card_entry_values(entry, index, uids[index]).__getitem__, at)))
        for index, ((_fields, at, wants, key), entry) in enumerate(zip(plan.checks, card, strict=True))
    )


BASE_WANT = {**st.TEMPLATE, "uid": 0, "key": ["dock"], "content": "The docks.", "comment": "Docks", "displayIndex": 0}
SETTING_NAMES = [*(n for n in BASE_WANT if n not in sillytavern_check.SKIPPED), "characterFilter"]


@pytest.mark.parametrize("value", [*ODD_VALUES, -1, "before_char", [1], [True], [1.0]], ids=repr)
@pytest.mark.parametrize("mixed", [False, True])
def test_book_check_settles_only_what_every_entry_check_would(value: Any, mixed: bool) -> None:
    """A source entry with one setting at an odd value, and its card entry as SillyTavern exports it
    with that setting's raw value (or the spelled ``position``, or the whole ``extensions``) changed:
    whenever the book check settles the book, every entry's own check holds, with the same count.
    ``mixed``: a second entry of another shape (no comment, no display index), read entry by entry."""
    settled = 0
    other = {**BASE_WANT, "uid": 1, "key": ["inn"], "content": "An inn."}
    del other["displayIndex"]
    for name in SETTING_NAMES:
        want = {**BASE_WANT, name: value}
        settings = [want, other] if mixed else [want]
        plan = sillytavern_check._Plan(settings, [True, False][: len(settings)])
        exported = [_exported(w) for w in settings]
        places = [EXPORTED_AT[name]] if name in EXPORTED_AT else []
        variants: list[list[Any]] = [exported]
        for raw in ODD_VALUES:
            for in_ext, key in [*places, (False, "position")]:
                changed = copy.deepcopy(exported)
                (changed[0]["extensions"] if in_ext else changed[0])[key] = raw
                variants.append(changed)
            variants.append([{**exported[0], "extensions": raw}, *exported[1:]])
        variants.append([{k: v for k, v in exported[0].items() if k != "id"}, *exported[1:]])
        variants.append([*exported, exported[0]])
        for entries in variants:
            if plan.book is not None and plan.book.settles(entries):
                settled += 1
                assert _each_settled(plan, entries), (name, value, entries)
                assert plan.book.compared == sum(len(check[0]) for check in plan.checks)
    assert settled > 0 or value is None or isinstance(value, float)


def test_book_check_settles_typical_outputs() -> None:
    """Not vacuous: the written outputs of the corpus are settled by the book check (their verdicts are
    compared with the general path's in test_fast_verdict_equals_the_general_one)."""
    settled = 0
    for source, _target, data in _outputs():
        imported = st.import_of(data)
        if imported is None or imported[1] is None:
            continue
        plan = sillytavern_check._plan(source)
        if plan.book is not None and plan.book.settles(imported[1]["entries"]):
            settled += 1
            assert _each_settled(plan, imported[1]["entries"])
    assert settled >= 20


@pytest.mark.parametrize("name", [n for n in st.CARD_READS if n != "uid"])
def test_kept_as_is_is_what_the_converter_gives_back(name: str) -> None:
    """A value that ``KEPT_AS_IS`` says comes back as it is does, from a card entry holding it at its
    ``CARD_RAW`` place, whatever else the entry holds (its spelled position, its index)."""
    in_ext, key = st.CARD_RAW[name]
    kind = st.KEPT_AS_IS.get(name, ...)
    kept = 0
    for value in [*ODD_VALUES, -1, [1]]:
        if (kind is None and value is None) or (kind not in (None, ...) and type(value) is not kind):
            continue
        raw = (not value) if name == "disable" else value
        for position, index in (("before_char", 0), ("after_char", 4), (None, 9)):
            entry: dict[str, Any] = {"position": position, "extensions": {}}
            (entry["extensions"] if in_ext else entry)[key] = raw
            got = st.card_entry_values(entry, index, 0)[st.CARD_READS.index(name)]
            assert _strict(got) == _strict(value), (name, value, position)
            kept += 1
    assert kept > 0
