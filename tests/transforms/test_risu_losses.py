"""Losses the SillyTavern -> Risu rewrite records where they happen reach the fidelity report.

A SillyTavern knob with a value no Risu decorator expresses (a delay of 2.5 messages, a 50.5 %
trigger, a non-boolean whole-word flag, an at-depth position with a negative depth, a NOT ALL
logic over a secondary key with a comma) stays stashed in the entry, where Risu never reads it:
Risu's ``convertCharbook``/decorator parser only sees the generated ``@@`` lines. The table's
rule for these paths says "translated" (true for ordinary values), so the report learns the
exception from the rewrite's own records (``Platform.hazards`` of the risu platform).
"""

from __future__ import annotations

import json

import pytest

from interop.api import read_bytes, write
from interop.fidelity import fidelity_report
from interop.formats import get_platform

EDGE_WORLD = {
    "entries": {
        "0": {"uid": 0, "key": ["a"], "content": "x", "delay": 2.5},
        "1": {"uid": 1, "key": ["b"], "content": "y", "useProbability": True, "probability": 50.5},
        "2": {"uid": 2, "key": ["c"], "content": "z", "matchWholeWords": "yes"},
        "3": {"uid": 3, "key": ["d"], "content": "w", "position": 4, "depth": -1},
        "4": {"uid": 4, "key": ["e"], "content": "v", "selectiveLogic": 3, "keysecondary": ["a,b"]},
    }
}
EXPECTED = {
    "entry[0].extensions.sillytavern.entry.delay": "@@activate_only_after",
    "entry[1].extensions.sillytavern.entry.trigger_percent": "@@probability",
    "entry[2].extensions.sillytavern.entry.match_whole_words": "whole-word",
    "entry[3].extensions.sillytavern.entry.insertion_position": "@@depth",
    "entry[4].extensions.sillytavern.entry.optional_logic": "AND ANY",
}


@pytest.mark.parametrize("target", ["risu-lorebook", "risum"])
def test_unexpressible_knobs_are_approximated_not_translated(target: str) -> None:
    doc = read_bytes(json.dumps(EDGE_WORLD).encode(), filename="edge.json")
    report = fidelity_report(doc, target, write(doc, target))
    items = {item.path: item for item in report.items}
    for path, words in EXPECTED.items():
        assert items[path].fate == "approximated", (path, items[path].fate)
        assert words in items[path].detail, (path, items[path].detail)


def test_ordinary_values_stay_translated_and_record_no_loss() -> None:
    world = {"entries": {"0": {"uid": 0, "key": ["a"], "content": "x", "delay": 2, "matchWholeWords": True}}}
    doc = read_bytes(json.dumps(world).encode(), filename="plain.json")
    assert doc.book is not None
    assert list(get_platform("risu").hazards(doc.book)) == []
    report = fidelity_report(doc, "risu-lorebook", write(doc, "risu-lorebook"))
    items = {item.path: item for item in report.items}
    assert items["entry[0].extensions.sillytavern.entry.delay"].fate == "translated"
    assert items["entry[0].extensions.sillytavern.entry.match_whole_words"].fate == "translated"
