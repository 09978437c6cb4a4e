"""Declarative field tables per platform (``mappings/<platform>.json``).

Each table says how native fields map onto canonical paths (used by the
adapter for renames and defaults) and, per target format, what writing a
canonical path into that format does (used by the fidelity report and the
docs). Layout: docs/architecture.md, "Mapping tables".

``python -m interop.docs --write`` renders ``docs/platforms/*.md`` from them
(``interop.docs.platforms``); ``--check`` fails when they are out of date (run in CI).
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .findings import FATE_RANK, TABLE_FATES
from .resources import data_dir

Fate = Literal["kept", "not_applicable", "kept_default", "translated", "stashed", "approximated", "lost"]
FATES: tuple[Fate, ...] = tuple(sorted(TABLE_FATES, key=lambda f: -FATE_RANK[TABLE_FATES[f]]))  # type: ignore[assignment]
"""The tables' and reports' fates, best to worst, in the one order of ``interop.findings.FATE_ORDER``
(reports, counts, the catalog columns and the docs use it).

``not_applicable``: the field has no place in the target's kind (a card's description in a
lorebook file); ``kept_default``: the field did not come back, but its value is what the
target applies anyway when it is absent (``use_regex: false`` in a SillyTavern world).
Neither is a loss a user would miss, so each is counted apart from ``lost``."""
FATE_LABELS: dict[str, str] = {f: TABLE_FATES[f] for f in ("not_applicable", "kept_default")}
"""How a fate is written for people (the fate itself is the identifier in JSON and the catalog)."""


def fate_label(fate: str) -> str:
    return FATE_LABELS.get(fate, fate)


Level = Literal["card", "book", "entry", "chat", "message"]


@dataclass(frozen=True)
class FieldMap:
    level: Level
    native: str
    canonical: str | None
    type: str = ""
    default: Any = None
    has_default: bool = False
    notes: str = ""
    values: dict[str, Any] | None = None
    """Enum fields: native value (as a JSON string key) -> canonical name, in native order."""
    card_default: Any = None
    has_card_default: bool = False
    """What the app's card import fills in when the field is missing (may differ from ``default``)."""
    world: Any = None
    """How the platform's own lorebook file carries the field when it differs from ``native``."""
    required: bool = False
    """The native format (or the app's importer) needs the field present."""
    transform: str = ""
    """Name of the value rewrite between native and canonical (``interop.transforms``), if not a copy."""
    order: int | None = None
    """Position in the native object's own key order (writers emit fields in this order)."""
    source: str = ""
    """A native flag that adds ``source`` to a canonical list when true (``transform`` "match")."""
    app_default: Any = None
    has_app_default: bool = False
    """The app's new-entry template value when its JSON spelling differs from ``default`` (``0`` for ``false``)."""
    import_default: Any = None
    has_import_default: bool = False
    """The app's card import reads this field and falls back to ``import_default`` when it is null or absent."""
    import_order: int | None = None
    """Position in the app's card import code (the order its verdict compares the fields in)."""
    inspect_flag: int | None = None
    """Position among the flags ``interop inspect`` counts (a field counted when it is ``true``)."""
    engine: str = ""
    """How the activation engine reads the raw value (SillyTavern: ``activation.entries.COERCIONS``, ``flag``, ...)."""
    model: str = ""
    """The typed canonical field's type (``bool``, ``int``, ``number``, ``str``, ``str[]``, ...)."""
    decorator: tuple[str, ...] = ()
    """The Risu decorators that carry the field (``interop.transforms.st_risu``)."""


@dataclass(frozen=True)
class TargetRule:
    pattern: str
    fate: Fate
    how: str = ""
    where: str = ""
    why: str = ""
    default: Any = None
    has_default: bool = False
    """The target applies ``default`` when the field is absent: a source value equal to it that
    does not come back is ``kept_default``, not lost."""

    @property
    def detail(self) -> str:
        return self.how or self.where or self.why

    def specificity(self) -> tuple[int, int]:
        """More literal segments first; a single-segment wildcard beats ``**``."""
        segments = self.pattern.split(".")
        literal = sum(1 for s in segments if s not in ("*", "**"))
        return (literal, -sum(1 for s in segments if s == "**"))


@dataclass(frozen=True)
class Mapping:
    platform: str
    title: str
    formats: tuple[str, ...]
    fields: tuple[FieldMap, ...]
    targets: dict[str, tuple[TargetRule, ...]] = field(default_factory=dict)
    notes: str = ""
    stash_why: dict[str, str] = field(default_factory=dict)
    """Stash record -> why the value had to be stashed (reported and documented)."""
    key_order: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Native object -> its keys in the app's own order, for objects whose keys have no rows of their own."""

    def native_order(self, level: Level) -> list[str]:
        """Native field names of ``level`` in the native key order (fields with an ``order``)."""
        ranked = [f for f in self.fields if f.level == level and f.order is not None]
        return [f.native for f in sorted(ranked, key=lambda f: f.order or 0)]

    def template(self, level: Level) -> dict[str, Any]:
        """The app's new-entry template: native field -> the value it holds, in table order."""
        rows = [f for f in self.fields_at(level) if f.has_default]
        return {f.native: copy.deepcopy(f.app_default if f.has_app_default else f.default) for f in rows}

    def import_defaults(self, level: Level) -> dict[str, Any]:
        """Native field -> the app's card-import fallback, in the import's order (else table order)."""
        rows = [f for f in self.fields_at(level) if f.has_import_default]
        ranked = sorted(rows, key=lambda f: -1 if f.import_order is None else f.import_order)
        return {f.native: f.import_default for f in ranked}

    def inspect_flags(self, level: Level) -> tuple[str, ...]:
        """The native fields ``interop inspect`` counts as flags, in its order."""
        rows = [f for f in self.fields_at(level) if f.inspect_flag is not None]
        return tuple(f.native for f in sorted(rows, key=lambda f: f.inspect_flag or 0))

    def with_column(self, level: Level, column: str) -> list[FieldMap]:
        """The rows of ``level`` that fill ``column`` (a non-empty string or tuple), in table order."""
        return [f for f in self.fields_at(level) if getattr(f, column)]

    def enum_values(self, level: Level, native: str) -> dict[str, Any]:
        row = self.by_native(level, native)
        return dict(row.values or {}) if row is not None else {}

    def card_defaults(self, level: Level) -> dict[str, Any]:
        return {f.native: f.card_default for f in self.fields if f.level == level and f.has_card_default}

    def required_fields(self, level: Level) -> list[str]:
        return [f.native for f in self.fields if f.level == level and f.required]

    def fields_at(self, level: Level) -> list[FieldMap]:
        return [f for f in self.fields if f.level == level]

    def by_native(self, level: Level, native: str) -> FieldMap | None:
        return next((f for f in self.fields if f.level == level and f.native == native), None)

    def by_canonical(self, level: Level, canonical: str) -> FieldMap | None:
        return next((f for f in self.fields if f.level == level and f.canonical == canonical), None)

    def defaults(self, level: Level) -> dict[str, Any]:
        """Native field -> default value, for fields whose table gives one."""
        return {f.native: f.default for f in self.fields if f.level == level and f.has_default}

    def rule_for(self, target: str, path: str) -> TargetRule | None:
        """The most specific rule of ``target`` matching canonical ``path`` (``entry.extensions.x.y``)."""
        rules = [r for r in self.targets.get(target, ()) if path_matches(r.pattern, path)]
        return max(rules, key=TargetRule.specificity) if rules else None


def path_matches(pattern: str, path: str) -> bool:
    return segments_match(pattern.split("."), path.split("."))


def segments_match(pattern: Sequence[str], segments: Sequence[str]) -> bool:
    """``*`` matches one segment, ``**`` the rest (possibly nothing)."""
    if not pattern:
        return not segments
    head = pattern[0]
    if head == "**":
        return True
    if not segments:
        return False
    if head == "*" or head == segments[0]:
        return segments_match(pattern[1:], segments[1:])
    return False


def _parse(raw: dict[str, Any], source: str) -> Mapping:
    try:
        fields = tuple(
            FieldMap(
                level=f["level"],
                native=f["native"],
                canonical=f.get("canonical"),
                type=f.get("type", ""),
                default=f.get("default"),
                has_default="default" in f,
                notes=f.get("notes", ""),
                values=f.get("values"),
                card_default=f.get("card_default"),
                has_card_default="card_default" in f,
                world=f.get("world"),
                required=bool(f.get("required", False)),
                transform=f.get("transform", ""),
                order=f.get("order"),
                source=f.get("source", ""),
                app_default=f.get("app_default"),
                has_app_default="app_default" in f,
                import_default=f.get("import_default"),
                has_import_default="import_default" in f,
                import_order=f.get("import_order"),
                inspect_flag=f.get("inspect_flag"),
                engine=f.get("engine", ""),
                model=f.get("model", ""),
                decorator=tuple(f.get("decorator", ())),
            )
            for f in raw.get("fields", [])
        )
        targets = {
            name: tuple(
                TargetRule(
                    r["canonical"],
                    r["fate"],
                    r.get("how", ""),
                    r.get("where", ""),
                    r.get("why", ""),
                    r.get("default"),
                    "default" in r,
                )
                for r in rules
            )
            for name, rules in raw.get("targets", {}).items()
        }
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{source}: malformed mapping table ({exc})") from None
    for rules in targets.values():
        for rule in rules:
            if rule.fate not in FATES:
                raise ValueError(f"{source}: unknown fate {rule.fate!r} for {rule.pattern}")
    return Mapping(
        platform=raw["platform"],
        title=raw.get("title", raw["platform"]),
        formats=tuple(raw.get("formats", [])),
        fields=fields,
        targets=targets,
        notes=raw.get("notes", ""),
        stash_why=dict(raw.get("stash_why", {})),
        key_order={name: tuple(keys) for name, keys in raw.get("key_order", {}).items()},
    )


def mappings_dir() -> Path:
    return data_dir("mappings")


_EXTRA_TABLES: dict[str, Path] = {}
"""Tables shipped next to a platform package outside ``mappings/`` (platform -> file)."""


def register_table(path: Path) -> Mapping:
    """Make the table at ``path`` loadable by its ``platform`` name, like one in ``mappings/``.

    For a platform package that lives outside this repository (an ``interop.platforms`` entry
    point, a test's sample platform): its ``__init__`` registers the table it ships beside it.
    """
    with path.open(encoding="utf-8") as handle:
        mapping = _parse(json.load(handle), str(path))
    _EXTRA_TABLES[mapping.platform] = path
    load.cache_clear()
    return load(mapping.platform)


def unregister_table(platform: str) -> None:
    if _EXTRA_TABLES.pop(platform, None) is not None:
        load.cache_clear()


def table_path(platform: str) -> Path:
    return _EXTRA_TABLES.get(platform) or mappings_dir() / f"{platform}.json"


@functools.cache
def load(platform: str) -> Mapping:
    path = table_path(platform)
    with path.open(encoding="utf-8") as handle:
        return _parse(json.load(handle), str(path))


def all_mappings() -> list[Mapping]:
    names = {p.stem for p in mappings_dir().glob("*.json")} | set(_EXTRA_TABLES)
    return [load(name) for name in sorted(names)]
