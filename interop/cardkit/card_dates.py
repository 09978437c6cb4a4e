"""CCv3 dates as the spec wants them: ``creation_date``/``modification_date`` are Unix seconds.

Some cards hold an ISO 8601 string instead (e.g. ``"2025-11-10T21:55:00.000Z"``), which
``validate --strict`` rejects. Neither app converts it: SillyTavern stores an imported V2/V3
card's JSON untouched apart from its own root fields (``importFromJson``/``readFromV2``,
src/endpoints/characters.js, never reads ``data.creation_date``), and RisuAI copies it as is
(``importCharacterCardSpec``, src/ts/characterCards.ts:
``char.creation_date = card.data.creation_date ?? 0``, a field it types as a number).

So a cross-format write into a V3 card (``card_for_target.card_for``) writes the number (parsed
with ``datetime.fromisoformat``; a string without a zone is taken as UTC) and records the
original in ``data.extensions.interop.dates``: ``{"format": <source format>, "text": {field:
string}}``. Writing that card back into the recorded format puts the string back (the number
still equal), so ccv3 -> png -> ccv3 gives the source again; the fidelity view restores it
before comparing, and the report names the field ``translated``.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from ..model.versions import STASH

DATE_FIELDS = ("creation_date", "modification_date")
RECORD = "dates"


def unix_seconds(text: str) -> int | float | None:
    """``text`` (ISO 8601) as Unix seconds, an int when whole; None if it is not such a date."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = moment.timestamp()
    return int(seconds) if seconds.is_integer() else seconds


def translated_dates(data: dict[str, Any], source_format: str) -> dict[str, Any]:
    """The ``data`` fields to update so its ISO dates become numbers (``{}`` when none is a string)."""
    texts = {}
    update: dict[str, Any] = {}
    for name in DATE_FIELDS:
        value = data.get(name)
        number = unix_seconds(value) if isinstance(value, str) else None
        if number is not None:
            texts[name] = value
            update[name] = number
    if not texts:
        return {}
    extensions = data.get("extensions")
    extensions = copy.deepcopy(extensions) if isinstance(extensions, dict) else {}
    ours = extensions.get(STASH) if isinstance(extensions.get(STASH), dict) else {}
    extensions[STASH] = {**ours, RECORD: {"format": source_format, "text": texts}}
    update["extensions"] = extensions
    return update


def record_of(data: dict[str, Any]) -> dict[str, Any] | None:
    extensions = data.get("extensions")
    ours = extensions.get(STASH) if isinstance(extensions, dict) else None
    record = ours.get(RECORD) if isinstance(ours, dict) else None
    if isinstance(record, dict) and isinstance(record.get("text"), dict):
        return record
    return None


def restored_dates(data: dict[str, Any]) -> dict[str, Any]:
    """The ``data`` fields to update to put back the recorded strings (``{}`` without a record).

    A string comes back only while its number is unchanged; the record is removed either way.
    """
    record = record_of(data)
    if record is None:
        return {}
    update: dict[str, Any] = {}
    for name, text in record["text"].items():
        if isinstance(text, str) and name in data and unix_seconds(text) == data[name]:
            update[name] = text
    extensions = copy.deepcopy(data["extensions"])
    ours = extensions[STASH]
    ours.pop(RECORD)
    if not ours:
        extensions.pop(STASH)
    update["extensions"] = extensions
    return update
