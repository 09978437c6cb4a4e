"""RisuAI's verdict on a card written from a Risu source: what its card import loads.

Facts (kwaroran/RisuAI ``src/ts/characterCards.ts``, ``importCharacterCardSpec`` ->
``convertCharbook``; ../shared/reference/risu.md section 3.1):

* ``key = keys.join(', ')``, later split on ``,`` and trimmed: a key holding a comma becomes two;
* ``insertorder = insertion_order``; ``alwaysActive = constant`` (default false);
* ``enabled`` is dropped: a disabled entry comes in active, unless its content starts with
  ``@@dont_activate``, which Risu's engine honours. So every card-book writer writes that line for
  an entry a Risu source disabled with it (recorded, removed on the way back; the report says
  ``translated``). SillyTavern knows the decorator too (``KNOWN_DECORATORS``,
  public/scripts/world-info.js) and skips a disabled entry before reading decorators: it loads the
  entry disabled either way, and the line is the Risu source's own text. An entry disabled in
  another app gets no line (SillyTavern would load a different content);
* ``use_regex`` is set false when ``keys[0]`` does not start with ``/``.

Compared per entry with the source's Risu settings (its canonical fields as the Risu reader
made them). Decorator-carried settings (``@@depth``, ``@@probability``, ...) are not compared.
"""

from __future__ import annotations

from typing import Any

from ...appmodel.card_book import open_verdict
from ...appmodel.verdict import AppModel, AppVerdict, Finding
from ...document import Document
from ...model.decorators import parse_decorators

APP = "risu"


def _keys(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    joined = ", ".join(k for k in value if isinstance(k, str))
    return [k.strip() for k in joined.split(",")] if joined else []


def _dont_activate(content: Any) -> bool:
    parsed = parse_decorators(content if isinstance(content, str) else None)
    return any(d.name == "dont_activate" for d in parsed.decorators)


def loaded(entry: dict[str, Any]) -> dict[str, Any]:
    """One card entry as Risu's ``convertCharbook`` holds it (the compared fields)."""
    keys = entry.get("keys")
    first = keys[0] if isinstance(keys, list) and keys and isinstance(keys[0], str) else ""
    return {
        "keys": _keys(keys),
        "insertion_order": entry.get("insertion_order"),
        "constant": entry.get("constant") is True,
        "enabled": not _dont_activate(entry.get("content")),
        "use_regex": entry.get("use_regex") is True and first.startswith("/"),
    }


def settings(entry: dict[str, Any]) -> dict[str, Any]:
    """The source entry's Risu settings (canonical fields of a Risu-read book)."""
    keys = entry.get("keys")
    return {
        "keys": [k.strip() for k in keys if isinstance(k, str)] if isinstance(keys, list) else [],
        "insertion_order": entry.get("insertion_order"),
        "constant": entry.get("constant") is True,
        "enabled": entry.get("enabled") is not False,
        "use_regex": entry.get("use_regex") is True,
    }


def findings(source: Document, output: bytes, target_format: str) -> AppVerdict:
    verdict, entries = open_verdict(APP, "RisuAI", "convertCharbook", source, output, target_format)
    if entries is None or source.book is None:
        return verdict
    for index, (entry, out) in enumerate(zip(source.book.entries, entries, strict=False)):
        want, got = settings(entry.dump()), loaded(out)
        for name in want:
            verdict.compared += 1
            if want[name] != got[name]:
                verdict.differing += 1
                fate = "lost" if name == "enabled" else "approximated"
                detail = (f"RisuAI loads {name} = {got[name]!r} from this output (convertCharbook); "
                          f"the source's is {want[name]!r}")
                verdict.findings.append(Finding(("entry", index, name), fate, detail))
    return verdict


MODEL = AppModel(findings, docs=(__doc__,))
