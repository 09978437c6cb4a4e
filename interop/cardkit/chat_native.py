"""Neutral helpers every chat format uses: reading untrusted chat bytes, native records, stashes, dates.

* ``chat_text`` / ``jsonl_records``: UTF-8 only, one typed error naming the line for a truncated
  or broken JSON line and for a line in another encoding (a file pieced together from two
  editors), inside the reader's limits (``Limits.max_file_bytes`` stops a 1 GB chat before it is
  decoded, ``check_size`` in the registry).
* ``native_record`` / ``apply_record``: what a native object holds beyond what its writer would
  produce from the canonical fields (``keep``: values, ``absent``: keys the writer would add,
  ``order``: key order). A writer rebuilds the object from the canonical fields and applies its
  platform's record: the file comes back as it was. Records of other platforms travel in the
  target's stash (``interop_stash``), so a chat taken to another app and back is restored.
* ``parse_time`` / ``st_timestamp``: the date spellings SillyTavern writes, as Unix milliseconds.
"""

from __future__ import annotations

import calendar
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from ..errors import ConversionError, CorruptInputError, InvalidCardError
from ..jsonio import load_json
from ..jsonvalue import json_equal
from ..limits import Limits
from ..model.chat import ChatLog, ChatMessage
from ..model.lorebook import Lorebook

LOCAL = "interop"
"""``ChatLog.native["interop"]``: facts about this reading only (where a bound book was found), never stashed."""
STASH_KEY = "interop_stash"
"""Where every chat writer stashes what its app cannot hold (message objects and the chat object)."""


def chat_text(data: bytes, file: str | None) -> str:
    """The chat's text: UTF-8 (a BOM allowed). A line in another encoding is named."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CorruptInputError("chat file is UTF-16; SillyTavern, RisuAI and Agnai write UTF-8", file=file)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CorruptInputError(
            "not UTF-8 here (mixed encodings: part of the file was saved in another encoding)",
            file=file,
            location=f"line {line}",
        ) from None


def jsonl_records(data: bytes, file: str | None, limits: Limits) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed value)`` for every non-blank line of a JSON Lines file."""
    text = chat_text(data, file)
    lines = text.split("\n")
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            value = load_json(line.encode("utf-8"), file=file, limits=limits)
        except CorruptInputError as exc:
            truncated = index == last and not text.endswith("\n")
            why = "truncated JSON line (the file was cut off)" if truncated else f"invalid JSON ({exc.reason})"
            raise CorruptInputError(why, file=file, location=f"line {index + 1}") from None
        yield index + 1, value


def first_json_line(probe: Any) -> Any:
    """The first line of ``probe.data`` parsed, for detectors (None when it is not one JSON object).
    A file of one line is the probe's shared parse (a minified card is not parsed twice)."""
    data: bytes = probe.data
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    if data[start : start + 1] != b"{":
        return None
    end = data.find(b"\n", start)
    if end == -1 or (not data[end : end + 64].strip() and not data[end:].strip()):  # no copy of a pretty card
        return probe.json_object
    if getattr(probe, "json", None) is not None:
        # The whole input parsed as one object (a pretty-printed card): with text after its first
        # line, that line cannot be a whole object too, so no failing parse per detector.
        return None
    try:
        return json.loads(data[start:end])  # a header line may be long (chat_metadata): no cut-off
    except (ValueError, RecursionError):
        return None


def native_record(native: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any]:
    """What ``native`` holds beyond ``fresh`` (the writer's rebuild of it): keep, absent, order."""
    record: dict[str, Any] = {}
    keep = {k: v for k, v in native.items() if k not in fresh or not _same(fresh[k], v)}
    absent = [k for k in fresh if k not in native]
    if keep:
        record["keep"] = keep
    if absent:
        record["absent"] = absent
    if list(native) != [k for k in fresh if k in native] + [k for k in native if k not in fresh]:
        record["order"] = list(native)
    return record


def open_message(raw: Any, key: str, file: str | None, where: str, not_object: str) -> tuple[dict[str, Any], Any, str]:
    """A native message object copied, its stash popped and its text (``raw[key]``) checked:
    the start every chat reader's message parser shares."""
    if not isinstance(raw, dict):
        raise InvalidCardError(not_object, file=file, location=where)
    raw = dict(raw)
    text = raw.get(key)
    if not isinstance(text, str):
        raise InvalidCardError(f"message without a '{key}' string", file=file, location=where)
    return raw, raw.pop(STASH_KEY, None), text


def stringify(obj: Any, **options: Any) -> str:
    """JSON text with characters unescaped; escaped throughout (ASCII) when it holds a lone
    surrogate, which UTF-8 cannot encode."""
    text = json.dumps(obj, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, ensure_ascii=True, **options)
    return text


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON and spelled alike (key order included: writers give files back byte for byte)."""
    if not json_equal(a, b):
        return False
    if isinstance(a, dict | list):
        return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)
    return True


def apply_record(fresh: dict[str, Any], record: dict[str, Any] | None) -> dict[str, Any]:
    """``fresh`` with a native record applied (keys put back, added keys dropped, order restored)."""
    if not record:
        return fresh
    out = dict(fresh)
    for key in record.get("absent", ()):
        out.pop(key, None)
    out.update(record.get("keep", {}))
    order = record.get("order")
    if isinstance(order, list):
        ranked = [k for k in order if k in out]
        out = {k: out[k] for k in ranked + [k for k in out if k not in ranked]}
    return out


# Stashes: the canonical values and other platforms' records a target cannot hold.


def message_stash(
    message: ChatMessage, platform: str, fields: tuple[str, ...], filled: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The stash a ``platform`` writer puts on a message: the canonical ``fields`` it cannot hold,
    those among ``filled`` it filled in (they were empty) and the native records of every other platform."""
    stash: dict[str, Any] = {}
    values = {name: message.value(name) for name in fields if _set(message.value(name))}
    if values:
        stash["fields"] = values
    empty = [name for name in filled if message.value(name) is None]
    if empty:
        stash["filled"] = empty
    others = {p: r for p, r in message.native.items() if p != platform and meaningful(r)}
    if others:
        stash["native"] = others
    return stash


def _set(value: Any) -> bool:
    """A canonical value worth stashing (``0`` and ``""`` are values; ``None`` and ``False`` are defaults)."""
    return value is not None and value is not False


def meaningful(value: Any) -> bool:
    """Whether a native record says anything (an empty record, ``False`` flags and ``None`` do not).
    A value a record keeps (``keep``) always does: SillyTavern's ``extra: {"isSmallSys": false}``
    is what the file holds, however empty it looks."""
    if isinstance(value, dict):
        return any((key == "keep" and bool(v)) or meaningful(v) for key, v in value.items())
    if isinstance(value, list):
        return bool(value)
    return value is not None and value is not False


def restore_message(message: ChatMessage, stash: Any) -> None:
    """Put a message stash back (a damaged stash restores nothing)."""
    if not isinstance(stash, dict):
        return
    fields = stash.get("fields")
    if isinstance(fields, dict):
        for name, value in fields.items():
            if name in ("name", "hidden", "time", "swipes", "swipe_index", "role"):
                setattr(message, name, value)
    if "name" in (stash.get("filled") or ()):
        message.name = None
    native = stash.get("native")
    if isinstance(native, dict):
        for platform, record in native.items():
            if isinstance(record, dict):
                message.native.setdefault(platform, record)


def chat_stash(
    log: ChatLog,
    platform: str,
    fields: tuple[str, ...],
    book: Any = None,
    filled: tuple[str, ...] = (),
    binds_by_name: bool = False,
) -> dict[str, Any]:
    """The chat-level stash: canonical ``fields`` the target cannot hold, the fields among
    ``filled`` the writer filled in (they were empty), other platforms' records, and the lorebook
    (canonical JSON) when the target cannot hold it either. A target that ``binds_by_name`` (SillyTavern)
    holds a book found outside the chat as its name only, so the flag saying so is not stashed."""
    stash: dict[str, Any] = {"v": 1}
    values = {name: log.value(name) for name in fields if _set(log.value(name))}
    if log.book_external and not binds_by_name:
        values["book_external"] = True
    if values:
        stash["fields"] = values
    empty = [name for name in filled if log.value(name) is None]
    if empty:
        stash["filled"] = empty
    others = {p: r for p, r in log.native.items() if p not in (platform, LOCAL) and meaningful(r)}
    if others:
        stash["native"] = others
    if book is not None:
        stash["book"] = book
    return stash if len(stash) > 1 else {}


def restore_chat(log: ChatLog, stash: Any) -> None:
    if not isinstance(stash, dict):
        return
    fields = stash.get("fields")
    if isinstance(fields, dict):
        for name, value in fields.items():
            if hasattr(log, name) and name not in ("messages", "lorebook", "native"):
                setattr(log, name, value)
    filled = stash.get("filled")
    if isinstance(filled, list):
        for name in filled:
            if name in ("title", "notes", "scenario", "greeting", "user", "character"):
                setattr(log, name, None)
    native = stash.get("native")
    if isinstance(native, dict):
        for platform, record in native.items():
            if isinstance(record, dict):
                log.native.setdefault(platform, record)
    book = stash.get("book")
    if isinstance(book, dict) and log.lorebook is None:
        log.lorebook = Lorebook.model_validate(book)


def stash_book(log: ChatLog) -> dict[str, Any] | None:
    """The chat's lorebook as canonical JSON for a target that cannot hold a book (None: no book,
    or a book found outside the chat file, which the target binds by ``book_name`` instead)."""
    if log.lorebook is None or log.book_external:
        return None
    return log.lorebook.dump()


def require_chat(doc: Any, target: str) -> ChatLog:
    if doc.chat is None:
        raise ConversionError(f"{target} holds a chat; this {doc.kind} has none", file=doc.source)
    chat: ChatLog = doc.chat
    return chat


# Dates.

MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip
_ST_STAMP = re.compile(
    r"^(?P<month>[A-Z][a-z]+) (?P<day>\d{1,2}), (?P<year>\d{4}) (?P<h>\d{1,2}):(?P<m>\d{2}) ?(?P<ap>[ap]m)$"
)
_HUMANIZED = re.compile(
    r"^(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2}) ?@(?P<h>\d{1,2})h ?(?P<m>\d{1,2})m ?(?P<s>\d{1,2})s"
    r"(?: ?(?P<ms>\d{1,3})ms)?$"
)


def parse_time(value: Any) -> int | None:
    """A timestamp as Unix milliseconds: a number (ms), ISO 8601, SillyTavern's message stamp
    (``June 19, 2023 2:20pm``, ``getMessageTimeStamp``) or its file-name stamp
    (``2023-06-19@14h20m05s``, ``humanizedDateTime``); wall-clock stamps are read as UTC."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    match = _ST_STAMP.match(text)
    if match and match["month"] in MONTHS:
        hour = int(match["h"]) % 12 + (12 if match["ap"] == "pm" else 0)
        month = MONTHS.index(match["month"]) + 1
        return _utc_ms(int(match["year"]), month, int(match["day"]), hour, int(match["m"]), 0, 0)
    match = _HUMANIZED.match(text)
    if match:
        ms = int(match["ms"] or 0)
        parts = (int(match[k]) for k in ("year", "month", "day", "h", "m", "s"))
        return _utc_ms(*parts, ms)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp() * 1000)


def _utc_ms(year: int, month: int, day: int, hour: int, minute: int, second: int, ms: int) -> int | None:
    try:
        moment = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None
    return calendar.timegm(moment.timetuple()) * 1000 + ms


def st_timestamp(ms: int) -> str:
    """SillyTavern's message stamp (``getMessageTimeStamp``) for ``ms``, in UTC."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    hour = moment.hour % 12 or 12
    meridiem = "pm" if moment.hour >= 12 else "am"
    return f"{MONTHS[moment.month - 1]} {moment.day}, {moment.year} {hour}:{moment.minute:02d}{meridiem}"


def iso_time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
