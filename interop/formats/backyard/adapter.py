"""Backyard AI archive (``.byaf``): read only.

Layout (ahoylabs/byaf ``specs/v1``): a zip with ``manifest.json``
(``characters``: one ``characters/<id>/character.json``, ``scenarios``:
``scenarios/<id>.json``, optional ``author``), the character (``name``,
``displayName``, ``persona``, ``loreItems``, ``images`` relative to the
character's folder) and the scenarios (``narrative``, ``firstMessages``,
``exampleMessages``, ``formattingInstructions``, sampler settings,
``messages``, ``backgroundImage``).

The card is built as SillyTavern's ``ByafParser`` builds it (``src/byaf.js``:
``getCharacterCard``, ``replaceMacros``, ``formatExampleMessages``,
``formatAlternateGreetings``, ``convertCharacterBook``); what has no card
field stays verbatim in ``data.extensions.backyard``; images and scenario
backgrounds become embedded assets at their archive paths. The zip goes
through the same safety checks as CHARX (``containers.charx.read_zip``).
Why there is no writer: see the notes of ``mappings/backyard.json``.
"""

from __future__ import annotations

import copy
import posixpath
import re
from typing import Any

from ...containers.charx import is_safe_member_name, read_zip
from ...document import Document
from ...errors import CorruptInputError, FormatError, InvalidCardError
from ...jsonio import load_json
from ...model.entry_limit import check_entries
from ...model.versions import imported_card
from ...platform.registry import Format, Probe, ReadContext

FORMAT = "byaf"
NAMESPACE = "backyard"
MANIFEST = "manifest.json"
_MACROS = (
    (re.compile(r"#\{user\}:", re.I), "{{user}}:"),
    (re.compile(r"#\{character\}:", re.I), "{{char}}:"),
    (re.compile(r"\{character\}(?!\})", re.I), "{{char}}"),
    (re.compile(r"\{user\}(?!\})", re.I), "{{user}}"),
)
_SCENARIO_ZERO_MAPPED = ("narrative", "firstMessages", "exampleMessages", "formattingInstructions")


def _is_character_path(name: str) -> bool:
    return name.startswith("characters/") and name.endswith("/character.json")


def _detect(probe: Probe) -> int:
    names = probe.zip_names
    if not names or MANIFEST not in names or "card.json" in names:
        return 0
    return 100 if any(_is_character_path(n) for n in names) else 0


def _require_manifest(names: list[str], filename: str | None) -> None:
    if MANIFEST not in names:
        raise FormatError("zip archive has no manifest.json at its root (not a Backyard archive)", file=filename)


def _js_text(value: Any) -> str:
    """``String(value || '')`` for the values a JSON file can hold."""
    if isinstance(value, str):
        return value
    if not value:
        return ""
    if isinstance(value, bool):
        return "true"
    if isinstance(value, int | float):
        return str(value)
    return ""  # objects and lists: SillyTavern would print "[object Object]"; nothing useful to keep


def replace_macros(value: Any) -> str:
    """Backyard's ``{user}``/``{character}`` (and ``#{...}:`` speaker tags) as ``{{user}}``/``{{char}}``."""
    text = _js_text(value)
    for pattern, replacement in _MACROS:
        text = pattern.sub(replacement, text)
    return text


def example_messages(examples: Any) -> str:
    """Each example with text as a ``<START>`` block, trailing whitespace trimmed."""
    if not isinstance(examples, list):
        return ""
    blocks = [f"<START>\n{replace_macros(e['text'])}\n" for e in examples if isinstance(e, dict) and e.get("text")]
    return "".join(blocks).rstrip()


def _first_text(scenario: dict[str, Any]) -> Any:
    first = scenario.get("firstMessages")
    if isinstance(first, list) and first and isinstance(first[0], dict):
        return first[0].get("text")
    return None


def lorebook(items: Any) -> dict[str, Any] | None:
    if not isinstance(items, list) or not items:
        return None
    entries = []
    for index, item in enumerate(items):
        if not item:
            continue
        item = item if isinstance(item, dict) else {}
        keys = [k.strip() for k in replace_macros(item.get("key")).split(",") if k.strip()]
        entries.append(
            {
                "keys": keys,
                "content": replace_macros(item.get("value")),
                "extensions": {},
                "enabled": True,
                "insertion_order": index,
                "use_regex": False,  # required by V3; plain keys, as SillyTavern matches them
            }
        )
    return {"entries": entries, "extensions": {}}


class _Archive:
    def __init__(self, data: bytes, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.zip = read_zip(data, limits=ctx.limits, filename=ctx.filename, require=_require_manifest)
        self.used: set[str] = set()

    def json(self, name: str, what: str) -> Any:
        if name not in self.zip.members:
            raise InvalidCardError(f"{what} {name} is not in the archive", file=self.ctx.filename, location=MANIFEST)
        self.used.add(name)
        return load_json(self.zip.members[name], file=self.ctx.filename, location=name, limits=self.ctx.limits)

    def member(self, name: str) -> bytes | None:
        name = posixpath.normpath(name) if name else name
        if not name or not is_safe_member_name(name) or name not in self.zip.members:
            return None
        self.used.add(name)
        return self.zip.members[name]


def _read(data: bytes, ctx: ReadContext) -> Document:
    archive = _Archive(data, ctx)
    manifest = archive.json(MANIFEST, "manifest")
    if not isinstance(manifest, dict):
        raise InvalidCardError("manifest.json is not an object", file=ctx.filename, location=MANIFEST)
    paths = manifest.get("characters")
    if not isinstance(paths, list) or not paths or not isinstance(paths[0], str) or not paths[0]:
        raise InvalidCardError("manifest has no character path", file=ctx.filename, location=f"{MANIFEST}: characters")
    doc = Document(format=FORMAT, source=ctx.filename)
    if len(paths) > 1:
        doc.warn(f"the manifest lists {len(paths)} characters; only the first is read (as SillyTavern does)")
    character_path = paths[0]
    character = archive.json(character_path, "character")
    if not isinstance(character, dict):
        raise InvalidCardError("character.json is not an object", file=ctx.filename, location=character_path)
    scenarios = _scenarios(archive, manifest, doc)

    author = manifest.get("author") if isinstance(manifest.get("author"), dict) else {}
    first = scenarios[0]
    greetings = [replace_macros(t) for s in scenarios[1:] if (t := _first_text(s))]
    data: dict[str, Any] = {
        "name": character.get("name") or character.get("displayName") or "",
        "description": replace_macros(character.get("persona")),
        "personality": "",
        "scenario": replace_macros(first.get("narrative")),
        "first_mes": replace_macros(_first_text(first)),
        "mes_example": example_messages(first.get("exampleMessages")),
        "creator_notes": author.get("backyardURL") or "",
        "system_prompt": replace_macros(first.get("formattingInstructions")),
        "post_history_instructions": "",
        "alternate_greetings": greetings,
        "tags": [],
        "creator": author.get("name") or "",
        "character_version": "",
    }
    items = character.get("loreItems")
    if isinstance(items, list):  # counted before any is converted
        check_entries(len(items), limits=ctx.limits, file=ctx.filename, location=f"{character_path}: loreItems")
    book = lorebook(items)
    if book is not None:
        data["character_book"] = book
    assets = _assets(archive, character, character_path, scenarios, doc)
    if assets:
        data["assets"] = assets
    data["extensions"] = {NAMESPACE: _unmapped(manifest, character, scenarios, greetings)}
    doc.card = imported_card(data)
    unused = [n for n in archive.zip.order if n not in archive.used]
    if unused:
        doc.warn(
            f"{len(unused)} archive member(s) the manifest does not reference were not read: {', '.join(unused[:5])}"
        )
    return doc


def _scenarios(archive: _Archive, manifest: dict[str, Any], doc: Document) -> list[dict[str, Any]]:
    """The scenarios that parse, in manifest order; ``[{}]`` when none does (as SillyTavern)."""
    found = []
    paths = manifest.get("scenarios")
    for path in paths if isinstance(paths, list) else []:
        if not isinstance(path, str) or path not in archive.zip.members:
            doc.warn(f"scenario {path!r} is not in the archive")
            continue
        try:
            scenario = archive.json(path, "scenario")
        except CorruptInputError as exc:  # SillyTavern skips a scenario that is not JSON; so do we
            doc.warn(f"scenario {path} skipped: {exc.reason}")
            continue
        if isinstance(scenario, dict):
            found.append(scenario)
        else:
            doc.warn(f"scenario {path} skipped: not an object")
    return found or [{}]


def _assets(
    archive: _Archive, character: dict[str, Any], character_path: str, scenarios: list[dict[str, Any]], doc: Document
) -> list[dict[str, Any]]:
    assets: list[dict[str, Any]] = []
    images = character.get("images")
    folder = posixpath.dirname(character_path)
    for image in images if isinstance(images, list) else []:
        path = image.get("path") if isinstance(image, dict) else None
        if not isinstance(path, str) or not path:
            continue
        full = posixpath.join(folder, path)
        content = archive.member(full)
        if content is None:
            doc.warn(f"character image {path} is not in the archive")
            continue
        _add_asset(doc, assets, "icon", posixpath.normpath(full), content, "main" if not assets else image.get("label"))
    seen = set()
    for scenario in scenarios:
        path = scenario.get("backgroundImage")
        if not isinstance(path, str) or not path or path in seen:
            continue
        seen.add(path)
        content = archive.member(path)
        if content is None:
            doc.warn(f"background image {path} is not in the archive")
            continue
        _add_asset(doc, assets, "background", posixpath.normpath(path), content, None)
    return assets


def _add_asset(doc: Document, assets: list[dict[str, Any]], kind: str, path: str, content: bytes, label: Any) -> None:
    uri = f"embeded://{path}"
    if uri in doc.assets:
        return
    stem, _, ext = posixpath.basename(path).rpartition(".")
    doc.assets[uri] = content
    name = label if isinstance(label, str) and label else stem or path
    assets.append({"type": kind, "uri": uri, "name": name, "ext": ext.lower() if stem else ""})


def _unmapped(
    manifest: dict[str, Any], character: dict[str, Any], scenarios: list[dict[str, Any]], greetings: list[str]
) -> dict[str, Any]:
    """The archive's JSON minus what became card fields (kept verbatim)."""
    # an empty name is kept: the card's name then came from displayName
    mapped = ("persona", "loreItems", "name") if character.get("name") else ("persona", "loreItems")
    rest_character = {k: v for k, v in character.items() if k not in mapped}
    rest_scenarios = []
    for i, scenario in enumerate(scenarios):
        rest = copy.deepcopy(scenario)
        if i == 0:
            for key in _SCENARIO_ZERO_MAPPED:
                rest.pop(key, None)
        elif _first_text(scenario):
            rest.pop("firstMessages", None)
        rest_scenarios.append(rest)
    return {
        "manifest": copy.deepcopy(manifest),
        "character": copy.deepcopy(rest_character),
        "scenarios": rest_scenarios,
    }


def _describe(doc: Document) -> dict[str, Any]:
    card = doc.card
    native = card.data.ext(NAMESPACE) if card is not None else {}
    character = native.get("character") if isinstance(native.get("character"), dict) else {}
    scenarios = native.get("scenarios") if isinstance(native.get("scenarios"), list) else []
    return {
        "display_name": character.get("displayName"),
        "scenarios": len(scenarios),
        "messages": sum(
            len(s["messages"]) for s in scenarios if isinstance(s, dict) and isinstance(s.get("messages"), list)
        ),
    }


FORMATS = (
    Format(
        name=FORMAT,
        kind="card",
        title="Backyard AI archive (.byaf: manifest, character, scenarios, images), read only",
        suffix=".byaf",
        platform="backyard",
        detect=_detect,
        detect_max=100,
        read=_read,
        describe=_describe,
        aliases=("backyard",),
    ),
)
"""This module's formats, registered by the package ``__init__`` (in this order)."""
