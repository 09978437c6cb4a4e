"""Adding a platform is one package, one table, one test file (issue 15 and issue 22, "done when").

The test writes a tiny "sample" platform into tmp_path: a package (``__init__`` registering the
``Platform`` and its table, a private adapter module with one JSON format of three card fields and
a lore list, a private activation profile: which lore entries the sample app injects for a chat,
a private app model: what the sample app loads from a card) and its mapping table beside it.
Nothing else in the repository names it: ``load_all`` finds it on ``interop.formats.__path__`` like
a built-in package, and the rest of interop (detection, reading, writing, conversion, the fidelity
report and its app verdicts, the activation engine and ``interop activate``) reaches it through the
registry (``Platform.profile``, ``Platform.app_check``) and the table. The fixture removes it again,
so no other test sees it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import interop.formats
from interop import api, mappings
from interop.appmodel.paths import render
from interop.platform import registry
from tests.validator import assert_identity, assert_via

NAME = "sample"
FORMAT = "sample-json"

INIT = '''"""Sample app: characters as {"sample": 1, "name", "bio", "hello", "lore"?}."""

from pathlib import Path

from interop.mappings import register_table
from interop.platform.registry import Platform, register_platform

from ._activation import PROFILE
from ._adapter import FORMATS, lore_of
from ._app import MODEL

TABLE = register_table(Path(__file__).with_name("sample.json"))
PLATFORM = register_platform(
    Platform(name="sample", title="Sample app", book_to_native=lore_of, profile=PROFILE, app_check=MODEL),
    *FORMATS,
)
'''

ADAPTER = '''"""Read and write the sample JSON character; field names come from the table."""

from typing import Any

from interop.cardkit.as_kind import as_card
from interop.document import Document
from interop.jsonio import dump_json
from interop.mappings import load
from interop.model import Lorebook
from interop.model.versions import imported_card, to_v3
from interop.platform.registry import Format, Probe, ReadContext, WriteContext


def _fields(level: str) -> dict[str, str]:
    """native -> canonical, read when used: the package registers the table after importing this module."""
    return {f.native: f.canonical for f in load("sample").fields_at(level)}


def _detect(probe: Probe) -> int:
    obj = probe.json_object
    return 100 if obj is not None and obj.get("sample") == 1 else 0


def _read(data: bytes, ctx: ReadContext) -> Document:
    obj = ctx.json(data)
    fields, (lore,) = _fields("card"), _fields("book")
    found = {fields[k]: v for k, v in obj.items() if k in fields}
    if lore in obj:
        entry = _fields("entry")
        found["character_book"] = {"entries": [{entry[k]: v for k, v in e.items() if k in entry} for e in obj[lore]]}
    return Document(format="sample-json", card=imported_card(found), source=ctx.filename)


def lore_of(book: Lorebook) -> list[dict[str, Any]]:
    """A canonical book as the sample app's lore list (its writer, and its activation profile's input)."""
    entries = [e.dump() for e in book.entries]
    return [{native: e[canonical] for native, canonical in _fields("entry").items() if canonical in e} for e in entries]


def _write(doc: Document, ctx: WriteContext) -> bytes:
    data = to_v3(as_card(doc)).data
    out: dict[str, Any] = {"sample": 1}
    for native, canonical in _fields("card").items():
        out[native] = getattr(data, canonical) or ""
    if data.character_book is not None:
        (lore,) = _fields("book")
        out[lore] = lore_of(data.character_book)
    return dump_json(out, pretty=ctx.pretty)


FORMATS = (
    Format(
        name="sample-json", kind="card", title="Sample app character JSON", suffix=".json",
        platform="sample", detect=_detect, read=_read, write=_write,
    ),
)
'''

APP = '''"""The sample app's card import, modelled: it reads each card book entry's keys and content, and
loads every entry enabled (the sample app has no switch to disable one)."""

from typing import Any

from interop.appmodel import AppModel, AppVerdict, Finding, open_verdict
from interop.document import Document


def _settings(entry: dict[str, Any]) -> dict[str, Any]:
    return {"keys": entry.get("keys"), "content": entry.get("content"), "enabled": entry.get("enabled") is not False}


def findings(source: Document, output: bytes, target_format: str) -> AppVerdict:
    verdict, entries = open_verdict("sample", "Sample app", "importCard", source, output, target_format)
    if entries is None or source.book is None:
        return verdict
    for index, (entry, out) in enumerate(zip(source.book.entries, entries, strict=False)):
        want, got = _settings(entry.dump()), {**_settings(out), "enabled": True}
        for name, value in want.items():
            verdict.compared += 1
            if got[name] != value:
                verdict.differing += 1
                detail = f"the sample app loads {name} = {got[name]!r}; the source's is {value!r}"
                verdict.findings.append(Finding(("entry", index, name), "lost", detail))
    return verdict


MODEL = AppModel(findings, docs=(__doc__,))
'''

ACTIVATION = '''"""The sample app's activation: an enabled lore entry fires when one of its keys is in the newest
message (in any case; every message with ``whole_chat``); nothing else fires it."""

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from interop.activation.chat import Chat
from interop.activation.profile import Profile, native_books
from interop.activation.result import Activation, EntryInfo, LogRecord, Reason, Result
from interop.activation.state import ChatState
from interop.activation.tokenizers import Tokenizer

from ._adapter import lore_of

Pool = list[tuple[str, dict[str, Any]]]


@dataclass
class SampleSettings:
    whole_chat: bool = False
    """Scan every message, not only the newest (``--setting whole_chat=true``)."""


class SampleProfile(Profile):
    name = "sample"

    def default_settings(self) -> SampleSettings:
        return SampleSettings()

    def prepare(self, books: Sequence[Any], settings: Any = None) -> Pool:
        return [(f"{name}#{i}", entry) for name, lore in native_books(books, lore_of) for i, entry in enumerate(lore)]

    def entries(self, prepared: Pool) -> list[EntryInfo]:
        return [EntryInfo(eid, eid, None, tuple(e.get("keys") or ()), e.get("text") or "") for eid, e in prepared]

    def evaluate(
        self, prepared: Pool, chat: Chat, settings: SampleSettings, state: ChatState, rng: random.Random,
        tokenizer: Tokenizer,
    ) -> Result:
        scanned = chat.messages if settings.whole_chat else chat.messages[-1:]
        newest = "\\n".join(m.text for m in scanned).lower()
        result = Result(self.name, steps=1, turn=len(chat.messages))
        for eid, entry in prepared:
            key = next((k for k in entry.get("keys") or () if k.lower() in newest), None)
            if entry.get("on") is False:
                result.log.append(LogRecord(eid, eid, False, Reason.DISABLED, step=1))
            elif key is None:
                result.log.append(LogRecord(eid, eid, False, Reason.NO_MATCH, step=1))
            else:
                result.log.append(LogRecord(eid, eid, True, Reason.KEY_MATCH, step=1, key=key))
                result.activated.append(Activation(eid, eid, entry.get("text") or "", "before_char"))
        return result


PROFILE = SampleProfile()
'''

TABLE = {
    "platform": NAME,
    "title": "Sample app",
    "formats": [FORMAT],
    "fields": [
        {"level": "card", "native": "name", "canonical": "name", "type": "string"},
        {"level": "card", "native": "bio", "canonical": "description", "type": "string"},
        {"level": "card", "native": "hello", "canonical": "first_mes", "type": "string"},
        {"level": "book", "native": "lore", "canonical": "entries", "type": "object[]"},
        {"level": "entry", "native": "keys", "canonical": "keys", "type": "string[]"},
        {"level": "entry", "native": "text", "canonical": "content", "type": "string"},
        {"level": "entry", "native": "on", "canonical": "enabled", "type": "boolean"},
    ],
    "targets": {
        FORMAT: [
            {"canonical": "card.name", "fate": "kept"},
            {"canonical": "card.description", "fate": "translated", "how": "written as bio"},
            {"canonical": "card.first_mes", "fate": "translated", "how": "written as hello"},
            {"canonical": "card.**", "fate": "lost", "why": "a sample character has three fields"},
            {"canonical": "book.**", "fate": "lost", "why": "a sample lore list is entries only"},
            {"canonical": "entry.keys", "fate": "kept"},
            {"canonical": "entry.content", "fate": "translated", "how": "written as text"},
            {"canonical": "entry.enabled", "fate": "translated", "how": "written as on"},
            {"canonical": "entry.**", "fate": "lost", "why": "a sample lore entry has three fields"},
        ]
    },
}

CHARACTER = {"sample": 1, "name": "Ilse", "bio": "Keeper of the harbour light.", "hello": "Mind the third step."}
LORE = [
    {"keys": ["harbour"], "text": "The light burns all night.", "on": True},
    {"keys": ["step"], "text": "The third step is loose.", "on": False},
]


def _write_package(root: Path) -> None:
    package = root / NAME
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(INIT, encoding="utf-8")
    (package / "_adapter.py").write_text(ADAPTER, encoding="utf-8")
    (package / "_app.py").write_text(APP, encoding="utf-8")
    (package / "_activation.py").write_text(ACTIVATION, encoding="utf-8")
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


@pytest.fixture
def lore_character(sample_platform: Path) -> Path:
    """The character with a lore list: an entry the app always loads, and one its source disabled."""
    path = sample_platform / "ilse-lore.sample.json"
    path.write_text(json.dumps({**CHARACTER, "lore": LORE}, indent=2) + "\n", encoding="utf-8")
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


def test_its_lore_round_trips(lore_character: Path) -> None:
    assert_identity(FORMAT, lore_character)
    book = api.read(lore_character).book
    assert book is not None
    assert [(e.keys, e.content, e.enabled) for e in book.entries] == [
        (["harbour"], "The light burns all night.", True),
        (["step"], "The third step is loose.", False),
    ]


def test_its_app_model_judges_a_conversion(lore_character: Path) -> None:
    """Into a generic card the source's app judges (``Platform.app_check``): the sample app loads
    the disabled entry enabled, so the report says ``enabled`` is lost there."""
    from interop.fidelity import fidelity_report
    from interop.fidelity.apps import apps_for

    assert registry.get_platform(NAME).app_check is not None
    assert apps_for(NAME, "ccv3") == [NAME]
    report = fidelity_report(api.read(lore_character), "ccv3")
    (verdict,) = report.apps
    assert (verdict.app, verdict.via, verdict.compared, verdict.differing) == (NAME, "importCard (JSON)", 6, 1)
    assert [(render(f.path), f.fate) for f in verdict.findings] == [("entry[1].enabled", "lost")]
    fates = {item.path: item.fate for item in report.items}
    assert fates["entry[1].enabled"] == "lost" and fates["entry[0].enabled"] != "lost"


def test_its_activation_profile_is_the_engines(lore_character: Path) -> None:
    """``interop activate --platform sample`` in library form: the engine finds the profile on the
    platform (``Platform.profile``); the profile converts the canonical book with its package's own
    adapter (``lore_of``, also registered as ``Platform.book_to_native``)."""
    from interop import engine

    assert NAME in engine.profile_names() and engine.get_profile(NAME) is registry.get_platform(NAME).profile
    book = engine.load_book(lore_character, NAME)
    chat = engine.Chat((engine.Message("User", "user", "Is the HARBOUR light lit? Mind the step."),))
    result = engine.evaluate([book], chat, NAME)
    assert (result.platform, [a.content for a in result.activated]) == (NAME, ["The light burns all night."])
    fired = [(r.fired, r.reason, r.key) for r in result.log]
    assert fired == [(True, "key_match", "harbour"), (False, "disabled", None)]


def test_interop_activate_offers_it(sample_platform: Path, lore_character: Path) -> None:
    """``interop activate --platform sample``, in a fresh process (the command reads its choices from
    the registry when the CLI is imported): the sample book, a chat, the profile's own setting."""
    chat = sample_platform / "chat.txt"
    chat.write_text("User: Tell me about the harbour.\nIlse: It is quiet tonight.\n", encoding="utf-8")
    code = (
        "import sys, interop.formats; interop.formats.__path__.append(sys.argv.pop(1)); "
        "from interop.cli import cli; cli()"
    )
    base = [sys.executable, "-c", code, str(sample_platform / "platforms"), "activate", str(lore_character)]
    fired = []
    for setting in ("whole_chat=false", "whole_chat=true"):
        args = [*base, "--chat", str(chat), "--platform", NAME, "--setting", setting, "--json"]
        run = subprocess.run(args, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        result = json.loads(run.stdout)
        assert result["platform"] == NAME
        fired.append([a["content"] for a in result["activated"]])
    assert fired == [[], ["The light burns all night."]]


def test_a_conversions_behaviour_uses_its_profile(lore_character: Path) -> None:
    """``--behaviour``: the sample app scans the newest message only, CCv3 the whole chat, so a key two
    messages back fires the entry on the CCv3 side only; the report names that entry."""
    from interop import engine
    from interop.fidelity import fidelity_report

    chat = engine.Chat((
        engine.Message("User", "user", "Tell me about the harbour."),
        engine.Message("Ilse", "assistant", "It is quiet tonight."),
    ))
    report = fidelity_report(api.read(lore_character), "ccv3", chats=[chat])
    assert not [w for w in report.warnings if "no activation profile" in w]
    behaviour = [item for item in report.items if item.path.startswith("behaviour[")]
    assert len(behaviour) == 1 and behaviour[0].fate == "approximated"
    assert "turn 2: 'entry 0' does not fire on the source (no_match) but fires on the target (key_match)" in (
        behaviour[0].detail
    )


def test_its_app_model_is_documented(sample_platform: Path) -> None:
    """docs/fidelity.md's "What each app loads" asks the registry: the sample app has its section."""
    from interop.fidelity.apps import docs_section

    text = "\n".join(docs_section())
    assert "### Sample app (`sample`)" in text and "loads every entry enabled" in text


def test_it_is_gone_after_the_test(tmp_path: Path) -> None:
    """Without the fixture nothing of the sample platform is left (other tests never see it)."""
    assert NAME not in interop.formats.platform_packages()
    with pytest.raises(KeyError):
        registry.get_platform(NAME)
    with pytest.raises(KeyError):
        registry.get_format(FORMAT)
    assert NAME not in {m.platform for m in mappings.all_mappings()}
    assert f"interop.formats.{NAME}" not in sys.modules
