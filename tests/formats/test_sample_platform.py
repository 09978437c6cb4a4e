"""Adding a platform is one package, one table, one test file (issue 15, "done when").

The test writes a tiny "sample" platform into tmp_path: a package (``__init__`` registering the
``Platform`` and its table, a private adapter module with one JSON format of three card fields)
and its mapping table beside it. Nothing else in the repository names it: ``load_all`` finds it on
``interop.formats.__path__`` like a built-in package, and the rest of interop (detection, reading,
writing, conversion, the fidelity report) reaches it through the registry and the table. The
fixture removes it again, so no other test sees it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import interop.formats
from interop import api, mappings
from interop.platform import registry
from tests.validator import assert_identity, assert_via

NAME = "sample"
FORMAT = "sample-json"

INIT = '''"""Sample app: characters as {"sample": 1, "name", "bio", "hello"}."""

from pathlib import Path

from interop.platform.registry import Platform, register_platform
from interop.mappings import register_table

from ._adapter import FORMATS

TABLE = register_table(Path(__file__).with_name("sample.json"))
PLATFORM = register_platform(Platform(name="sample", title="Sample app"), *FORMATS)
'''

ADAPTER = '''"""Read and write the sample JSON character; field names come from the table."""

from typing import Any

from interop.cardkit.as_kind import as_card
from interop.document import Document
from interop.platform.registry import Format, Probe, ReadContext, WriteContext
from interop.jsonio import dump_json
from interop.mappings import load
from interop.model.versions import imported_card, to_v3


def _fields() -> dict[str, str]:
    """native -> canonical, read when used: the package registers the table after importing this module."""
    return {f.native: f.canonical for f in load("sample").fields_at("card")}


def _detect(probe: Probe) -> int:
    obj = probe.json_object
    return 100 if obj is not None and obj.get("sample") == 1 else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    fields = _fields()
    card = imported_card({fields[k]: v for k, v in obj.items() if k in fields})
    return Document(format="sample-json", card=card, source=ctx.filename)


def _write(doc: Document, ctx: WriteContext) -> bytes:
    data = to_v3(as_card(doc)).data
    out: dict[str, Any] = {"sample": 1}
    for native, canonical in _fields().items():
        out[native] = getattr(data, canonical) or ""
    return dump_json(out, pretty=ctx.pretty)


FORMATS = (
    Format(
        name="sample-json", kind="card", title="Sample app character JSON", suffix=".json",
        platform="sample", detect=_detect, read=_read, write=_write,
    ),
)
'''

TABLE = {
    "platform": NAME,
    "title": "Sample app",
    "formats": [FORMAT],
    "fields": [
        {"level": "card", "native": "name", "canonical": "name", "type": "string"},
        {"level": "card", "native": "bio", "canonical": "description", "type": "string"},
        {"level": "card", "native": "hello", "canonical": "first_mes", "type": "string"},
    ],
    "targets": {
        FORMAT: [
            {"canonical": "card.name", "fate": "kept"},
            {"canonical": "card.description", "fate": "translated", "how": "written as bio"},
            {"canonical": "card.first_mes", "fate": "translated", "how": "written as hello"},
            {"canonical": "card.**", "fate": "lost", "why": "a sample character has three fields"},
            {"canonical": "book.**", "fate": "lost", "why": "the sample app has no lorebook"},
            {"canonical": "entry.**", "fate": "lost", "why": "the sample app has no lorebook"},
        ]
    },
}

CHARACTER = {"sample": 1, "name": "Ilse", "bio": "Keeper of the harbour light.", "hello": "Mind the third step."}


def _write_package(root: Path) -> None:
    package = root / NAME
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(INIT, encoding="utf-8")
    (package / "_adapter.py").write_text(ADAPTER, encoding="utf-8")
    (package / "sample.json").write_text(json.dumps(TABLE, indent=2), encoding="utf-8")


def _forget(root: Path) -> None:
    interop.formats.__path__.remove(str(root))
    registry.unregister_platform(NAME)
    mappings.unregister_table(NAME)
    package = f"interop.formats.{NAME}"
    for module in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[module]


@pytest.fixture
def sample_platform(tmp_path: Path) -> Iterator[Path]:
    """The sample package on the formats search path, discovered by ``load_all``; removed afterwards."""
    root = tmp_path / "platforms"
    _write_package(root)
    interop.formats.load_all()  # the built-in platforms first, as in any run
    interop.formats.__path__.append(str(root))
    try:
        interop.formats.load_all()
        yield tmp_path
    finally:
        _forget(root)


@pytest.fixture
def character(sample_platform: Path) -> Path:
    path = sample_platform / "ilse.sample.json"
    path.write_text(json.dumps(CHARACTER, indent=2) + "\n", encoding="utf-8")
    return path


def test_the_package_registers_its_platform_format_and_table(sample_platform: Path) -> None:
    assert NAME in interop.formats.platform_packages()
    assert registry.get_platform(NAME).title == "Sample app"
    assert registry.all_platforms()[-1].name == NAME  # new platforms list after the built-in ones
    fmt = registry.get_format(FORMAT)
    assert fmt.platform == NAME and fmt in registry.writable_formats()
    assert mappings.load(NAME).formats == (FORMAT,)
    assert NAME in {m.platform for m in mappings.all_mappings()}


def test_detects_reads_and_writes(character: Path) -> None:
    data = character.read_bytes()
    assert api.detect(data, character.name) == FORMAT
    doc = api.read(character)
    assert doc.card is not None
    assert (doc.card.data.name, doc.card.data.description, doc.card.data.first_mes) == (
        "Ilse",
        "Keeper of the harbour light.",
        "Mind the third step.",
    )
    assert json.loads(api.write(doc, FORMAT)) == CHARACTER


def test_round_trips_identically(character: Path) -> None:
    assert_identity(FORMAT, character)
    assert_identity(FORMAT, character.read_bytes(), filename=character.name)


def test_converts_to_ccv3_and_back(character: Path) -> None:
    leg = assert_via(FORMAT, "ccv3", character)
    assert leg.back_format == FORMAT and leg.ok and not leg.unpredicted
    ccv3 = api.write(api.read(character), "ccv3")
    assert api.detect(ccv3) == "ccv3"
    back = api.read_bytes(api.write(api.read_bytes(ccv3), FORMAT))
    assert back.format == FORMAT and json.loads(api.write(back, FORMAT)) == CHARACTER


def test_its_table_drives_the_fidelity_report(character: Path) -> None:
    """A full card written as the sample format: the table's rules give each field its fate."""
    from interop.fidelity import fidelity_report

    card = api.read(Path(__file__).parents[2] / "corpus" / "cards" / "ilse_v3.json")
    report = fidelity_report(card, FORMAT)
    fates = {item.path: item.fate for item in report.items}
    assert fates["card.name"] == "kept"
    assert fates["card.description"] == "translated"
    assert fates["card.personality"] == "lost"
    assert report.has_losses


def test_it_is_gone_after_the_test(tmp_path: Path) -> None:
    """Without the fixture nothing of the sample platform is left (other tests never see it)."""
    assert NAME not in interop.formats.platform_packages()
    with pytest.raises(KeyError):
        registry.get_platform(NAME)
    with pytest.raises(KeyError):
        registry.get_format(FORMAT)
    assert NAME not in {m.platform for m in mappings.all_mappings()}
    assert f"interop.formats.{NAME}" not in sys.modules
