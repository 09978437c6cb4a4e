"""Typed storage of SillyTavern-only data in the canonical model.

Layout (condensed spec Appendix A, names we chose where it gives none; the
full table with native names is ``mappings/sillytavern.json``)::

    entry.extensions.sillytavern.entry.*     -> STEntryExt (built from the table's ``model`` column)
    book.extensions.sillytavern.lorebook.*   -> STLorebookExt
    card data.extensions.sillytavern.*       -> STCardExt (what ST's exporter drops)

Every field is ``Lenient`` like the rest of the canonical model: a native value
of the expected type is validated strictly, anything else is kept verbatim, so
``role: null`` stays ``null`` and an absent field stays absent.
"""

from __future__ import annotations

from typing import Any

from pydantic import create_model

from ...mappings import Mapping
from ...mappings import load as load_mapping
from ...model import CanonicalModel, Lenient, Lorebook, LorebookEntry
from ...model.stash import Stash

NAMESPACE = "sillytavern"
# How an entry namespace spells its stash (``interop.model.stash``): keep = ``verbatim``
# (native fields written back as they were), absent = ``omit`` (native fields left out).
VERBATIM, OMIT = STASH_KEYS = ("verbatim", "omit")
# Keep records of the card flavour (what ST's card exporter drops): entry fields in the
# entry namespace, book fields in the card's ``data.extensions.sillytavern``.
CARD_FIELDS = "card_fields"
BOOK_FIELDS = "character_book"
# Keep record of native fields the mapping table does not know (an entry's, or a world file's
# top-level keys): written back as they were.
UNKNOWN = "unknown"
# Absent record of the card-book writers (``st_readable_book``): fields they added to an entry
# read from a world file, left out again when the world is written back.
ADDED_FIELDS = "added_fields"
Number = int | float


class STCharacterFilter(CanonicalModel):
    """Native ``characterFilter {isExclude, names, tags}`` as ``{mode, values, tags}``.

    ``mode`` is ``"exclude"``/``"include"`` for ``isExclude`` true/false; ``values``
    are the avatar file names (without extension) ST compares with; ``tags`` are
    ST's local tag ids. Neither is portable across installs.
    """

    mode: Lenient[str] = None
    values: Lenient[list[str]] = None
    tags: Lenient[list[str]] = None


class STEntryBookkeeping(CanonicalModel):
    """What ``entry.extensions.sillytavern.entry`` holds besides the table's knobs: values a
    transform splits off its field, and our own records of the card flavour."""

    case_sensitive: Lenient[bool] = None  # only the null override; a boolean lives in CCv3 case_sensitive
    group_text: Lenient[str] = None  # the native comma string when joining inclusion_groups does not give it back
    recursion_level: Lenient[Number] = None  # set when the native value is a number (level), not a boolean
    has_extensions: Lenient[bool] = None  # the native entry had an `extensions` object
    card_fields: Lenient[dict[str, Any]] = None  # CCv3 entry fields ST's card exporter drops (name, priority, ...)
    world_extensions: Lenient[list[str]] = None  # card stash only: keys the world entry's own `extensions` had
    uid_key: Lenient[str] = None  # the object key in `entries` when it is not str(uid) (table row too)


MODEL_TYPES: dict[str, Any] = {
    "bool": bool, "int": int, "number": Number, "str": str, "str[]": list[str], "object": dict[str, Any],
    "character_filter": STCharacterFilter,
}  # fmt: skip
"""The table's ``model`` column -> the Python type of the canonical field."""
ENTRY_PREFIX = f"extensions.{NAMESPACE}.entry."


def entry_fields(mapping: Mapping) -> dict[str, Any]:
    """Canonical field name -> ``(Lenient[type], None)``: every table row with a ``model`` under the namespace."""
    return {
        str(f.canonical).removeprefix(ENTRY_PREFIX): (Lenient[MODEL_TYPES[f.model]], None)
        for f in mapping.with_column("entry", "model")
        if (f.canonical or "").startswith(ENTRY_PREFIX)
    }


STEntryExt: type[STEntryBookkeeping] = create_model(
    "STEntryExt",
    __base__=STEntryBookkeeping,
    __doc__="``entry.extensions.sillytavern.entry``: every ST knob without a CCv3 field (mappings/sillytavern.json)",
    **entry_fields(load_mapping(NAMESPACE)),
)


class STLorebookExt(CanonicalModel):
    """``book.extensions.sillytavern.lorebook``: world-file data without a CCv3 book field."""

    native_world: Lenient[bool] = None  # the book was read from a world file: write back only what it had
    original_data: Any = None  # the world file's `originalData` (a card book), verbatim
    unknown: Lenient[dict[str, Any]] = None  # other top-level keys of the world file (e.g. legacy `folders`)
    # Global-setting defaults some editors keep per book (Appendix A.2); ST itself keeps these globally.
    case_sensitive_default: Lenient[bool] = None
    match_whole_words_default: Lenient[bool] = None
    group_scoring_default: Lenient[bool] = None
    scan_depth_default: Lenient[Number] = None


class STCardExt(CanonicalModel):
    """``data.extensions.sillytavern`` on a card we write for ST: book fields ST's exporter drops."""

    character_book: Lenient[dict[str, Any]] = None


def entry_ext(entry: LorebookEntry) -> STEntryBookkeeping:
    """The entry's typed ST namespace (empty when absent)."""
    raw = entry.ext(NAMESPACE).get("entry")
    return STEntryExt.model_validate(raw) if isinstance(raw, dict) else STEntryExt()


def entry_stash(ns: Any) -> Stash:
    """The ``verbatim``/``omit`` stash of an entry namespace (empty when missing or malformed)."""
    return Stash.from_json(ns, *STASH_KEYS)


def keep_record(value: Any) -> Stash:
    """A keep-only record (``card_fields``, ``character_book``) as a stash; a malformed one is empty."""
    return Stash(keep=value if isinstance(value, dict) else {})


def book_ext(book: Lorebook) -> STLorebookExt:
    raw = book.ext(NAMESPACE).get("lorebook")
    return STLorebookExt.model_validate(raw) if isinstance(raw, dict) else STLorebookExt()


def foreign_extensions(extensions: Any) -> dict[str, Any]:
    """``extensions`` without our namespace (what other tools and ST itself keep)."""
    if not isinstance(extensions, dict):
        return {}
    return {k: v for k, v in extensions.items() if k != NAMESPACE}
