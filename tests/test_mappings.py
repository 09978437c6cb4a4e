"""The mapping tables are the one place a field is spelled (issue 22): a SillyTavern entry setting
added to mappings/sillytavern.json reaches every derived place without another edit.

The added setting is made up (``pinToTop``); the table is registered in a fresh interpreter so
the modules compute their constants from it, as they would from the shipped table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from interop.mappings import load
from interop.model import Lorebook

ROOT = Path(__file__).resolve().parents[1]

WORLD_ROW = {
    "level": "entry", "native": "pinToTop", "canonical": "extensions.sillytavern.entry.pin_to_top",
    "type": "boolean", "default": False, "transform": "copy", "order": 43,
    "engine": "flag", "model": "bool", "inspect_flag": 6,
}  # fmt: skip
CARD_ROW = {
    "level": "entry", "native": "extensions.pin_to_top", "canonical": "extensions.sillytavern.entry.pin_to_top",
    "type": "boolean", "world": "pinToTop", "import_default": False, "import_order": 28,
}  # fmt: skip

PROBE = r"""
import json, sys
from pathlib import Path
from interop.mappings import register_table
register_table(Path(sys.argv[1]))

from interop import api
from interop.formats.sillytavern import app_load as app
from interop.formats.sillytavern.activation import STEntry
from interop.platform.registry import get_format
from interop.docs import platforms
from interop.formats.sillytavern.model import STEntryExt
from interop.mappings import load

world = {"entries": {"0": {"uid": 0, "key": ["bell"], "content": "It rings.", "pinToTop": True}}}
doc = api.read_bytes(json.dumps(world).encode(), filename="w.json")
canonical = doc.book.entries[0].extensions["sillytavern"]["entry"]
card = json.loads(api.write(doc, "sillytavern-card"))
card_entry = card["data"]["character_book"]["entries"][0]
loaded = app.load(json.dumps(card).encode())
print(json.dumps({
    "template": app.TEMPLATE.get("pinToTop", "missing"),
    "platform_doc": [line for line in platforms.render_platform_doc(load("sillytavern")).splitlines()
                     if line.startswith("| entry | `pinToTop` |")],
    "template_last": list(app.TEMPLATE)[-1],
    "import": app.FLAT_READS.get("pinToTop"),
    "model": "pin_to_top" in STEntryExt.model_fields,
    "engine": STEntry("w", 0, {"pinToTop": "0"}).pin_to_top,
    "engine_off": STEntry("w", 0, {}).pin_to_top,
    "flags": get_format("sillytavern-world").describe(doc)["flags"],
    "canonical": canonical.get("pin_to_top"),
    "world_back": json.loads(api.write(doc, "sillytavern-world"))["entries"]["0"].get("pinToTop"),
    "card_flat": card_entry["extensions"].get("pin_to_top"),
    "app_loads": loaded.entries[0].get("pinToTop"),
    "app_fallback": app.load_json({"spec": "chara_card_v2", "data": {"character_book": {"entries": [
        {"keys": ["a"], "content": "b", "enabled": True, "insertion_order": 1, "extensions": {}}
    ]}}}).entries[0].get("pinToTop"),
}))
"""


@pytest.fixture(scope="module")
def derived(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    table = json.loads((ROOT / "mappings" / "sillytavern.json").read_text("utf-8"))
    table["fields"] += [WORLD_ROW, CARD_ROW]
    path = tmp_path_factory.mktemp("table") / "sillytavern.json"
    path.write_text(json.dumps(table), "utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_a_new_setting_is_in_the_app_models_template_and_card_import(derived: dict[str, Any]) -> None:
    assert derived["template"] is False and derived["template_last"] == "pinToTop"
    assert derived["import"] == ["pin_to_top", False]
    assert derived["app_loads"] is True  # ST's convertCharacterBook reads the flat key
    assert derived["app_fallback"] is False  # ... and falls back to the import default


def test_a_new_setting_is_typed_read_by_the_engine_and_counted_by_inspect(derived: dict[str, Any]) -> None:
    assert derived["model"] is True
    assert derived["engine"] is True and derived["engine_off"] is False  # "0" is truthy in JavaScript
    assert derived["flags"] == {"pinToTop": 1}
    assert derived["platform_doc"] == [
        "| entry | `pinToTop` | native position 43; counted as a flag by `interop inspect`; "
        "activation engine reads it as `flag`; canonical type `bool` |"
    ]


def test_a_new_setting_travels_through_the_adapter(derived: dict[str, Any]) -> None:
    assert derived["canonical"] is True
    assert derived["world_back"] is True
    assert derived["card_flat"] is True


def test_the_shipped_template_is_the_tables_defaults() -> None:
    """createDefaultWorldInfoEntry's 39 fields: the table's entry defaults, one for one."""
    table = load("sillytavern")
    template = table.template("entry")
    assert len(template) == 39
    assert list(template) == [f.native for f in table.fields_at("entry") if f.has_default]
    assert template["delayUntilRecursion"] == 0 and type(template["delayUntilRecursion"]) is int


def test_every_decorator_column_has_one_knob_row_and_is_named_in_the_risu_table() -> None:
    """A SillyTavern field given a Risu decorator in the table needs its row in ``st_risu.KNOBS`` (the
    semantics), and the Risu table's rule for that field names the decorator (its docs)."""
    from interop.transforms.st_risu import KNOBS

    st, risu = load("sillytavern"), load("risu")
    with_decorators = [f.native for f in st.with_column("entry", "decorator")]
    used = [native for knob in KNOBS for native in knob.natives()]
    assert sorted(used) == sorted(with_decorators)
    for row in st.with_column("entry", "decorator"):
        rule = risu.rule_for("risu-lorebook", f"entry.{row.canonical}")
        assert rule is not None and rule.fate == "translated", row.native
        for spec in row.decorator:
            assert f"@@{spec.partition('=')[0]}" in rule.detail, (row.native, spec)


def test_key_orders_are_the_writers_orders() -> None:
    """Agnai's character and Risu's module are written in the table's ``key_order``."""
    from interop import api
    from interop.formats.risu.module import module_from_book

    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Luna", "description": "d", "first_mes": "hi", "tags": ["moon"], "creator": "c", "scenario": "s",
        "character_book": {"entries": [{"keys": ["a"], "content": "b", "enabled": True, "insertion_order": 1}]},
    }}  # fmt: skip
    agnai = json.loads(api.write(api.read_bytes(json.dumps(card).encode(), filename="c.json"), "agnai-character"))
    order = load("agnai").key_order["card"]
    assert [k for k in agnai if k in order] == [k for k in order if k in agnai]
    assert len([k for k in agnai if k in order]) >= 8
    module = module_from_book(Lorebook.model_validate({"name": "M", "description": "d", "entries": []}))
    order = load("risu").key_order["module"]
    assert list(module)[:3] == [k for k in order if k in module][:3]
