"""RisuAI internal ``loreBook`` objects <-> the canonical ``Lorebook``.

Risu holds one lorebook as a flat list of raw entries (risu.md 1); the
``{"type":"risu"}`` export, ``.risum`` modules and Risu CHARX all carry that
list unchanged. Layout in the canonical model (also in mappings/risu.json):

* Mapped fields (``key`` -> ``keys``, ``insertorder`` -> ``insertion_order``, ...) come
  from the mapping table. ``extentions`` (sic) is the entry's ``extensions``;
  its ``risu_case_sensitive`` is ``case_sensitive``.
* Risu-only fields live in ``entry.extensions.risuai``: ``mode``, ``bookVersion``,
  ``activationPercent``, ``loreCache``, ``folder`` (the folder id without the
  ``\\uf000folder:`` prefix), unknown fields under ``extra``, and under ``text``
  the exact ``key``/``secondkey`` text when re-joining the split list would not
  give it back. The namespace's presence marks an entry that came from Risu.
* Folder entries are not entries: ``book.extensions.risuai.folders`` lists
  ``{"id", "name", "position", "parent", "fields"}`` where ``position`` is the
  number of entries before the folder and ``fields`` its other raw fields.
* Decorators with an exact SillyTavern field become that field
  (``interop.transforms.st_risu``); the original lines are recorded in
  ``entry.extensions.risuai.decorators`` and written back unchanged. After a
  trip through SillyTavern, the template defaults its writers filled in are
  dropped again (``interop.transforms.st_filler``) and the lines are recognised on the next read
  even though the entry now carries a stash (``enabled``, ``position``, ...).
* Writing canonical data Risu cannot hold stashes it in the entry's
  ``extentions.interop_stash``, which Risu keeps and ignores: ``entry`` (fields
  such as ``enabled``, ``priority``, ``name``, the exact key list when a key has a
  comma), ``decorators`` (the lines we generated and the values they replace),
  ``absent``/``filled`` (canonical fields that were missing / Risu fields we
  filled in), ``card_fields`` (``mode``/``folder`` that sat on a CCv3 card entry,
  as Risu's card export writes them) and ``case_in_extensions``. Reading removes
  the stash again, so canonical -> Risu -> canonical is the identity. ``entry`` and
  ``absent`` are the keep/absent parts of ``interop.model.stash.Stash``, as are a
  book stash's ``book`` and ``filled`` (``BOOK_KEEP``, ``BOOK_ABSENT``).
* Risu -> canonical -> Risu is the identity too, checked per entry: a stash
  that would not write the entry back (edited in Risu, or hand-made) is kept as
  an ordinary ``extentions`` key instead of being interpreted.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ... import findings
from ...errors import InvalidCardError
from ...jsonvalue import drop_empty, get_path, json_equal, pop_path, set_path
from ...mappings import load as load_mapping
from ...model import Lorebook, as_str_list
from ...model.decorators import JS_WHITESPACE
from ...model.stash import Stash
from ...transforms import st_risu
from ...transforms.for_risu import entry_for_risu
from ...transforms.st_risu import Generated

FOLDER_PREFIX = "\uf000folder:"
NS = "risuai"
STASH = "interop_stash"
# Risu's spelling of the keep/absent parts of an entry's stash (interop.model.stash); the other
# keys of the record (``filled``, ``card_fields``, ...) are Risu's own.
ENTRY_KEEP, ENTRY_ABSENT = "entry", "absent"
# The same for a whole book (the export wrapper's or the module object's ``interop_stash``): ``book``
# keeps the book data a Risu file has no place for; a module's ``filled`` lists what Risu's
# importer needs that the book lacked.
BOOK_KEEP, BOOK_ABSENT = "book", "filled"
KEY_FIELDS = ("key", "secondkey")
CARD_ENTRY_FIELDS = ("mode", "folder")  # non-spec fields Risu's card export adds to CCv3 entries

_MAPPING = load_mapping("risu")
_ENTRY_FIELDS = _MAPPING.fields_at("entry")
RENAMES: dict[str, str] = {
    f.native: f.canonical for f in _ENTRY_FIELDS if f.canonical and "." not in f.canonical and "." not in f.native
}
NATIVE_OF: dict[str, str] = {canonical: native for native, canonical in RENAMES.items()}
NATIVE_ONLY: tuple[str, ...] = tuple(
    f.native for f in _ENTRY_FIELDS if f.canonical and f.canonical.startswith(f"extensions.{NS}.")
)
DEFAULTS: dict[str, Any] = _MAPPING.defaults("entry")
# Risu-only fields every entry Risu makes holds (the table gives them a default: ``mode``, ``bookVersion``);
# an entry from elsewhere gets them too, listed as ``filled`` in its stash.
FILLED_FOR_FOREIGN: tuple[str, ...] = tuple(name for name in NATIVE_ONLY if name in DEFAULTS)
REQUIRED: tuple[str, ...] = tuple(_MAPPING.required_fields("entry"))  # what Risu's addLorebook writes
FIELD_ORDER: tuple[str, ...] = tuple(_MAPPING.native_order("entry"))  # Risu's own key order
# The ``extentions`` key holding ``case_sensitive`` (Risu itself never reads it).
_CASE_ROW = _MAPPING.by_canonical("entry", "case_sensitive")
assert _CASE_ROW is not None and _CASE_ROW.native.startswith("extentions."), "mappings/risu.json: case_sensitive"
CASE_KEY: str = _CASE_ROW.native.removeprefix("extentions.")
_MISSING = object()


def split_keys(text: str) -> list[str]:
    """Risu's reading of a key string: split on commas, trim, drop empty parts."""
    return [part.strip(JS_WHITESPACE) for part in text.split(",") if part.strip(JS_WHITESPACE)]


def _canonical_default(native: str) -> Any:
    return [] if native in KEY_FIELDS else DEFAULTS[native]


def _folder_ref(value: Any) -> tuple[str, Any]:
    """(field, value) for a raw folder reference: the id without its prefix when it has one."""
    if isinstance(value, str) and value.startswith(FOLDER_PREFIX):
        return "id", value[len(FOLDER_PREFIX) :]
    return "key", value


# --- Risu -> canonical ---------------------------------------------------------


def entry_from_risu(raw: dict[str, Any]) -> dict[str, Any]:
    """One raw Risu entry as a canonical entry dict (``raw`` is not modified).

    Writing the result back must give ``raw`` again. Our stash and the
    decorator translation are checked against that; a stash that does not
    reproduce the entry (edited or hand-made) is kept as an ordinary
    ``extentions`` key, and decorators that would not come back are left alone.
    """
    for use_stash, translate in ((True, True), (False, True), (False, False)):
        data = _entry_from_risu(copy.deepcopy(raw), use_stash=use_stash, translate=translate)
        if json_equal(entry_to_risu(data), raw):
            return data
    return data


def _entry_from_risu(raw: dict[str, Any], *, use_stash: bool, translate: bool) -> dict[str, Any]:
    data, ns, native_ext = _fields_from_risu(raw)
    extensions, marker = _split_extentions(native_ext, data, ns, use_stash=use_stash)
    if marker is None:
        data["extensions"] = {**extensions, NS: ns}
        record = st_risu.from_risu(data) if translate else None
        if record is not None:
            ns["decorators"] = record
        return data
    return _apply_marker(raw, data, ns, extensions, marker)


def _fields_from_risu(raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """(canonical fields, the ``risuai`` namespace, the raw ``extentions`` value or ``_MISSING``)."""
    data: dict[str, Any] = {}
    ns: dict[str, Any] = {}
    text: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    native_ext: Any = _MISSING
    for name, value in raw.items():
        if name == "extentions":
            native_ext = value
        elif name in KEY_FIELDS:
            _read_keys(name, value, data, text)
        elif name in RENAMES:
            data[RENAMES[name]] = value
        elif name == "folder":
            kind, ref = _folder_ref(value)
            ns["folder" if kind == "id" else "folder_key"] = ref
        elif name in NATIVE_ONLY:
            ns[name] = value
        else:
            extra[name] = value
    if text:
        ns["text"] = text
    if extra:
        ns["extra"] = extra
    return data, ns, native_ext


def _read_keys(name: str, value: Any, data: dict[str, Any], text: dict[str, Any]) -> None:
    """A ``key``/``secondkey`` text as the canonical list; the text itself when the list does not give it back."""
    if not isinstance(value, str):
        text[name] = value  # off-type: kept verbatim, the canonical list stays unset
        return
    parts = split_keys(value)
    data[RENAMES[name]] = parts
    if ", ".join(parts) != value:
        text[name] = value


def _split_extentions(
    native_ext: Any, data: dict[str, Any], ns: dict[str, Any], *, use_stash: bool
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The entry's other ``extentions`` keys and our stash (None when not used); the rest goes to ``data``/``ns``."""
    if not isinstance(native_ext, dict):
        if native_ext is not _MISSING:
            ns["extentions"] = native_ext
        return {}, None
    extensions = dict(native_ext)
    marker = extensions.pop(STASH) if use_stash and isinstance(extensions.get(STASH), dict) else None
    if CASE_KEY in extensions:
        data["case_sensitive"] = extensions.pop(CASE_KEY)
    if NS in extensions:
        ns["extentions_risuai"] = extensions.pop(NS)
    if not native_ext:
        ns["empty_extentions"] = True
    return extensions, marker


def _apply_marker(
    raw: dict[str, Any], data: dict[str, Any], ns: dict[str, Any], extensions: dict[str, Any], marker: dict[str, Any]
) -> dict[str, Any]:
    """Undo what ``entry_to_risu`` did to a canonical entry that did not come from Risu."""
    _unfill(raw, data, ns, extensions, marker)
    stash = Stash.from_json(marker, ENTRY_KEEP, ENTRY_ABSENT)
    _restore_key_lists(raw, data, ns, stash.keep)
    absent = set(stash.absent)
    if extensions or ns or "extensions" not in absent:
        data["extensions"] = {**extensions, **({NS: ns} if ns else {})}
    # The key lists were restored above (only while Risu's text agrees); the other kept values as they are.
    for name, value in stash.keep.items():
        if name not in ("keys", "secondary_keys"):
            data[name] = copy.deepcopy(value)
    _reread_decorators(data, marker)
    # A field we filled in goes again, unless it was changed in Risu since.
    for name in absent - {"extensions"}:
        native = NATIVE_OF.get(name)
        if native is not None and data.get(name) == _canonical_default(native):
            data.pop(name, None)
    return data


def _unfill(
    raw: dict[str, Any], data: dict[str, Any], ns: dict[str, Any], extensions: dict[str, Any], marker: dict[str, Any]
) -> None:
    """Drop the Risu fields we filled in; put the case flag and the card entry's mode/folder back where they were."""
    for native in marker.get("filled") or ():
        if native in ns and ns[native] == DEFAULTS.get(native):
            del ns[native]
    if marker.get("case_in_extensions") is True and "case_sensitive" in data:
        extensions[CASE_KEY] = data.pop("case_sensitive")
    for name in marker.get("card_fields") or ():
        if name in CARD_ENTRY_FIELDS and name in raw:
            data[name] = raw[name]
            for key in (name, f"{name}_key"):
                ns.pop(key, None)


def _restore_key_lists(raw: dict[str, Any], data: dict[str, Any], ns: dict[str, Any], stashed: dict[str, Any]) -> None:
    """The exact stashed key lists win, but only while Risu's text still says the same thing."""
    text = ns.get("text") if isinstance(ns.get("text"), dict) else {}
    for name in ("keys", "secondary_keys"):
        native = NATIVE_OF[name]
        current = raw.get(native)
        if (
            name in stashed
            and isinstance(current, str)
            and split_keys(current) == split_keys(", ".join(as_str_list(stashed[name])))
        ):
            data[name] = copy.deepcopy(stashed[name])
            text.pop(native, None)
    if "text" in ns and not text:
        del ns["text"]


def _reread_decorators(data: dict[str, Any], marker: dict[str, Any]) -> None:
    """Remove the decorator lines we generated; read the user's own lines as Risu decorators."""
    generated = marker.get("decorators")
    edited = isinstance(generated, dict) and not st_risu.strip_generated(
        data, generated.get("text", ""), generated.get("fields", {})
    )  # the user edited our lines in Risu: read them as Risu decorators
    # A Risu-made entry (no Risu field filled in by us) keeps the user's decorators in content; the stash
    # only holds what it gained elsewhere (enabled, position, ... from a trip through SillyTavern).
    risu_made = not generated and not marker.get("filled") and not marker.get("card_fields")
    if edited or risu_made:
        record = st_risu.from_risu(data)
        if record is not None and isinstance(data.get("extensions"), dict):
            data["extensions"].setdefault(NS, {})["decorators"] = record


def folder_from_risu(raw: dict[str, Any], position: int) -> dict[str, Any]:
    record: dict[str, Any] = {}
    if "key" in raw:
        kind, ref = _folder_ref(raw["key"])
        record[kind] = ref
    if "comment" in raw:
        record["name"] = raw["comment"]
    record["position"] = position
    if "folder" in raw:
        kind, ref = _folder_ref(raw["folder"])
        record["parent" if kind == "id" else "parent_key"] = ref
    record["fields"] = {k: v for k, v in raw.items() if k not in ("key", "comment", "mode", "folder")}
    return record


def _folder_from_card(raw: dict[str, Any]) -> bool:
    """A folder entry we wrote from a CCv3 card entry: it goes back to being that entry."""
    ext = raw.get("extentions")
    marker = ext.get(STASH) if isinstance(ext, dict) else None
    return isinstance(marker, dict) and "mode" in (marker.get("card_fields") or ())


def lorebook_from_risu_entries(entries: list[dict[str, Any]], *, location: str = "data") -> Lorebook:
    """Risu's raw ``loreBook`` list as a canonical Lorebook (folders in ``extensions.risuai.folders``)."""
    if not isinstance(entries, list):
        raise InvalidCardError("Risu lorebook is not a list of entries", location=location)
    canonical: list[dict[str, Any]] = []
    folders: list[dict[str, Any]] = []
    for index, raw in enumerate(entries):
        if not isinstance(raw, dict):
            raise InvalidCardError(f"entry is a {type(raw).__name__}, not an object", location=f"{location}[{index}]")
        if raw.get("mode") == "folder" and not _folder_from_card(raw):
            folders.append(folder_from_risu(raw, len(canonical)))
        else:
            canonical.append(entry_from_risu(raw))
    book: dict[str, Any] = {"entries": canonical}
    if folders:
        book["extensions"] = {NS: {"folders": folders}}
    return Lorebook.model_validate(book)


# --- canonical -> Risu ---------------------------------------------------------


def _write_keys(value: Any, native: str, text: dict[str, Any], keep: dict[str, Any], canon: str) -> Any:
    original = text.get(native)
    if isinstance(value, list) and all(isinstance(k, str) for k in value):
        if isinstance(original, str) and split_keys(original) == value:
            return original
        joined = ", ".join(value)
        if split_keys(joined) != value:
            keep[canon] = value  # commas, padding or empty keys: Risu would read other keys
        return joined
    keep[canon] = value
    return ", ".join(as_str_list(value))


@dataclass
class _EntryStash:
    """What writing an entry to Risu records in ``extentions.interop_stash`` so reading can undo it.

    ``stash``: canonical fields Risu cannot hold (keep) and fields Risu requires that the entry
    lacked (absent); the rest is Risu's own: Risu fields we ``filled`` in, a card entry's
    ``card_fields``.
    """

    stash: Stash = field(default_factory=Stash)
    filled: list[str] = field(default_factory=list)
    card_fields: list[str] = field(default_factory=list)

    def marker(self, *, case_in_extensions: bool, generated: Generated) -> dict[str, Any]:
        decorators = {"text": generated.text, "fields": generated.fields} if generated.text else None
        return {
            **self.stash.to_json(ENTRY_KEEP, ENTRY_ABSENT),
            **{
                k: v
                for k, v in (
                    ("filled", self.filled),
                    ("card_fields", self.card_fields),
                    ("case_in_extensions", case_in_extensions),
                    ("decorators", decorators),
                )
                if v
            },
        }


def entry_to_risu(entry: dict[str, Any], *, at: int | None = None) -> dict[str, Any]:
    """One canonical entry dict as a raw Risu entry (the input is not modified).

    ``at``: the entry's index in the book being written; what the rewrite cannot express is
    then recorded in the conversion's journal (``interop.findings``) under ``("entry", at)``.
    """
    d = copy.deepcopy(entry)
    ns, from_risu = _pop_namespace(d)
    content_absent = "content" not in d
    generated = entry_for_risu(d, ns.get("decorators"))
    if at is not None:
        journal = findings.current()
        if journal is not None:
            journal.conflicts(generated.losses.under("entry", at), by="risu writer (transforms.st_risu)")
    ext = d.pop("extensions", _MISSING)

    record = _EntryStash()
    out = _write_mapped(d, ns, record, from_risu=from_risu)
    if not from_risu:
        if content_absent and "content" in out:
            record.stash.absent.append("content")  # only generated decorator lines are in it
        _write_foreign(d, out, record)
    _write_risu_only(ns, out)

    native_ext, case_in_extensions = _native_extentions(ext, ns, d, record)
    # Whatever canonical data is left (enabled, priority, position, name, unknown keys) has no Risu field.
    record.stash.keep.update(d)
    marker = record.marker(case_in_extensions=case_in_extensions and not from_risu, generated=generated)
    if marker:
        native_ext[STASH] = marker
        if not isinstance(ext, dict):
            marker.setdefault(ENTRY_ABSENT, []).append("extensions")  # after the other records, as ever
    if "extentions" in ns:
        out["extentions"] = ns["extentions"]
    elif native_ext or ns.get("empty_extentions") or (not from_risu and isinstance(ext, dict)):
        out["extentions"] = native_ext
    return _ordered(out)


def _pop_namespace(d: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The entry's ``extensions.risuai`` (popped) and whether it came from Risu (it has one)."""
    ext = d.get("extensions", _MISSING)
    if isinstance(ext, dict) and isinstance(ext.get(NS), dict):
        return ext.pop(NS), True
    return {}, False


def _write_mapped(d: dict[str, Any], ns: dict[str, Any], record: _EntryStash, *, from_risu: bool) -> dict[str, Any]:
    """The mapped fields (popped from ``d``); a foreign entry gets the fields Risu requires."""
    text = ns.get("text") if isinstance(ns.get("text"), dict) else {}
    out: dict[str, Any] = {}
    for native, canon in RENAMES.items():
        if canon in d:
            value = d.pop(canon)
            out[native] = _write_keys(value, native, text, record.stash.keep, canon) if native in KEY_FIELDS else value
        elif native in text and not isinstance(text[native], str):
            out[native] = text[native]
        elif not from_risu and native in REQUIRED:
            out[native] = DEFAULTS[native]
            record.stash.absent.append(canon)
    return out


def _write_foreign(d: dict[str, Any], out: dict[str, Any], record: _EntryStash) -> None:
    """An entry from elsewhere: a CCv3 card entry's mode/folder and the fields Risu fills in for new entries."""
    # Risu's own CCv3 export puts mode/folder on card entries: they are Risu's fields again.
    for name in CARD_ENTRY_FIELDS:
        if isinstance(d.get(name), str):
            out[name] = d.pop(name)
            record.card_fields.append(name)
    for native in FILLED_FOR_FOREIGN:
        if native not in out:
            out[native] = DEFAULTS[native]
            record.filled.append(native)


def _write_risu_only(ns: dict[str, Any], out: dict[str, Any]) -> None:
    """The Risu-only fields kept in the namespace: mode, folder, bookVersion, ..., unknown fields."""
    for name in NATIVE_ONLY:
        if name in ns and name != "folder":
            out[name] = ns[name]
    if "folder" in ns:
        out["folder"] = FOLDER_PREFIX + str(ns["folder"])
    elif "folder_key" in ns:
        out["folder"] = ns["folder_key"]
    out.update(ns.get("extra") or {})


def _native_extentions(
    ext: Any, ns: dict[str, Any], d: dict[str, Any], record: _EntryStash
) -> tuple[dict[str, Any], bool]:
    """The entry's ``extentions`` (without our stash yet) and whether it held its own case flag."""
    native_ext: dict[str, Any] = {}
    if isinstance(ext, dict):
        native_ext = ext
    elif ext is not _MISSING:
        record.stash.keep["extensions"] = ext  # an off-type canonical value
    if "extentions_risuai" in ns:
        native_ext[NS] = ns["extentions_risuai"]
    case_in_extensions = CASE_KEY in native_ext  # a Risu card export's entry: its own copy stays as it is
    if "case_sensitive" in d and not case_in_extensions:
        native_ext[CASE_KEY] = d.pop("case_sensitive")
    return native_ext, case_in_extensions


def _ordered(out: dict[str, Any]) -> dict[str, Any]:
    known = {k: out[k] for k in FIELD_ORDER if k in out}
    return {**known, **{k: v for k, v in out.items() if k not in known}}


def folder_to_risu(record: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "id" in record:
        out["key"] = FOLDER_PREFIX + str(record["id"])
    elif "key" in record:
        out["key"] = record["key"]
    if "name" in record:
        out["comment"] = record["name"]
    out["mode"] = "folder"
    fields = record.get("fields")
    if isinstance(fields, dict):
        out.update(fields)
    else:  # a folder made outside Risu: give it what Risu's addLorebookFolder writes
        for native in (*REQUIRED, *FILLED_FOR_FOREIGN):  # ``mode`` is "folder" already
            out.setdefault(native, DEFAULTS[native])
    if "parent" in record:
        out["folder"] = FOLDER_PREFIX + str(record["parent"])
    elif "parent_key" in record:
        out["folder"] = record["parent_key"]
    return _ordered(out)


def risu_entries_from_lorebook(book: Lorebook, *, record: bool = False) -> list[dict[str, Any]]:
    """A canonical Lorebook as Risu's raw ``loreBook`` list, folders back at their positions.

    ``record``: this is the conversion's output (not a check): record in the journal what Risu
    will not honour (the ``risu`` platform's hazards, so the report need not run the rewrite again).
    """
    if record:
        findings.cover("hazards:risu")
        entries = [entry_to_risu(entry.dump(), at=index) for index, entry in enumerate(book.entries)]
    else:
        entries = [entry_to_risu(entry.dump()) for entry in book.entries]
    folders = book.ext(NS).get("folders")
    pending = [f for f in folders if isinstance(f, dict)] if isinstance(folders, list) else []
    pending.sort(key=lambda f: f["position"] if isinstance(f.get("position"), int) else len(entries))
    result: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        while pending and isinstance(pending[0].get("position"), int) and pending[0]["position"] <= index:
            result.append(folder_to_risu(pending.pop(0)))
        result.append(entry)
    result.extend(folder_to_risu(f) for f in pending)
    return result


# --- book-level data Risu has no place for ----------------------------------------


def book_stash(book: Lorebook, *, native: tuple[str, ...] = (f"extensions.{NS}.folders",)) -> dict[str, Any]:
    """The book's data other than its entries and the ``native`` paths the Risu format holds itself.

    A container left empty by removing a native path is removed too: reading
    recreates it whenever the native data is there.
    """
    data = book.dump()
    data.pop("entries", None)
    for path in native:
        if not get_path(data, path):
            continue
        pop_path(data, path)
        parents = path.split(".")[:-1]
        drop_empty(data, [".".join(parents[: i + 1]) for i in range(len(parents))])
    return data


def book_with_stash(book: Lorebook, stash: dict[str, Any]) -> Lorebook:
    """Put ``book_stash`` data back around a book read from Risu entries."""
    merged = copy.deepcopy(stash)
    merged.pop("entries", None)
    current = book.dump()
    for name in ("name", "description"):
        if name in current:
            merged[name] = current[name]
    for key, value in book.ext(NS).items():
        if not set_path(merged, f"extensions.{NS}.{key}", value):
            merged["extensions"] = {NS: {key: value}}  # the stash held an off-type value there
    merged["entries"] = current.get("entries", [])
    return Lorebook.model_validate(merged)
