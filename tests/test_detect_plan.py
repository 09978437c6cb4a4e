"""Reading picks the format ``detect_all`` ranks first, asking fewer detectors (``api.best_format``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from interop import api
from interop.api import best_format, detect_all
from interop.errors import InteropError
from interop.platform.registry import Format, Probe, all_formats, writable_formats
from tests.conftest import PROJECT_CORPUS, SHARED_CORPUS

ODD_INPUTS = [
    b'{"name": "x", "firstMessage": "hi", "desc": "d", "personality": "p"}',  # Risu and V1 both claim it
    b'{"kind": "character", "name": "a", "persona": {}}',
    b'{"spec": "chara_card_v2", "data": {"name": "n"}, "kind": "character"}',
    b'{"entries": {}}',
    b'{"entries": []}',
    b"not json at all",
    b"Anna: hello there\nBob: hi you\n",
    b"[1, 2",
    b"{}",
]


def _inputs() -> list[tuple[str, bytes]]:
    """The corpus files, what every writer makes of a card with a book, and odd inputs."""
    files = [p for root in (PROJECT_CORPUS, SHARED_CORPUS) if root.is_dir() for p in sorted(root.rglob("*"))]
    found = [(str(p), p.read_bytes()) for p in files if p.is_file() and p.stat().st_size < 20_000_000]
    card = api.read(PROJECT_CORPUS / "cards" / "ilse_v3.json")
    written = []
    for fmt in writable_formats():
        try:
            written.append((f"written.{fmt.name}", api.write(card, fmt.name)))
        except InteropError:
            continue
    return found + written + [(f"odd{i}", data) for i, data in enumerate(ODD_INPUTS)]


def test_every_detector_keeps_to_its_bound_and_the_best_is_detect_alls_first() -> None:
    formats = [f for f in all_formats() if f.detect is not None]
    assert all(f.detect_max is not None for f in formats), "a built-in detector without detect_max is asked always"
    claimed = set()
    inputs = _inputs()
    for name, data in inputs:
        probe = Probe(data, name)
        for fmt in formats:
            try:
                score = fmt.detect(probe)  # type: ignore[misc]
            except InteropError:  # detect_all's rule: no claim
                continue
            assert score <= fmt.detect_max, (fmt.name, name, score)  # type: ignore[operator]
        found = detect_all(data, name)
        assert best_format(Probe(data, name)) == (found[0].format if found else None), name
        claimed.update(d.format for d in found[:1])
    assert len(inputs) > 120 and len(claimed) == len(formats)  # every format won somewhere


def _fake(name: str, score: int, bound: int | None, asked: list[str]) -> Format:
    def detect(probe: Probe) -> int:
        asked.append(name)
        return score

    return Format(name, "card", name, ".x", "fake", detect=detect, detect_max=bound)


@pytest.mark.parametrize(
    ("specs", "winner", "asked"),
    [
        # (name, score, bound) in all_formats order
        ([("a", 100, 100), ("b", 100, 100), ("c", 90, 110)], "a", ["c", "a"]),
        ([("a", 0, 100), ("b", 100, 100), ("c", 0, 80)], "b", ["a", "b"]),
        ([("a", 100, 100), ("plugin", 120, None)], "plugin", ["plugin"]),
        ([("a", 100, 100), ("plugin", 100, None)], "a", ["plugin", "a"]),  # a tie goes to the first in order
        ([("a", 5, 100), ("plugin", 100, None), ("b", 100, 100)], "plugin", ["plugin", "a"]),
        ([("plugin", 100, None), ("a", 100, 100)], "plugin", ["plugin"]),
        ([("a", 80, 80), ("b", 100, 110), ("c", 110, 110)], "c", ["b", "c"]),
        ([("a", 0, 100), ("b", 0, 5)], None, ["a", "b"]),
    ],
)
def test_the_plan_stops_only_when_no_detector_left_can_win(
    monkeypatch: pytest.MonkeyPatch, specs: list[tuple[str, int, int | None]], winner: str | None, asked: list[str]
) -> None:
    calls: list[str] = []
    formats = [_fake(name, score, bound, calls) for name, score, bound in specs]
    monkeypatch.setattr(api, "all_formats", lambda: formats)
    assert best_format(Probe(b"x")) == winner
    assert calls == asked
    ranked = sorted(((score, -i, name) for i, (name, score, _) in enumerate(specs) if score > 0), reverse=True)
    assert winner == (ranked[0][2] if ranked else None)  # what detect_all's sort picks


def test_reading_uses_the_plan(tmp_path: Path) -> None:
    card = b'{"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "n"}}'
    assert api.read_bytes(card).format == api.detect(card) == "ccv3"
