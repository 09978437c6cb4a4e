"""Round trips: source -> target -> source format, compared with the source.

The forward report (source -> target) promises that a field it calls kept,
translated or stashed can come back. A difference is *predicted* when that
report called the field approximated or lost; ``Leg.ok`` is False when a
source field changed or vanished although the forward report promised it
back: the report (or the way back) is wrong, which is what ``interop
roundtrip`` exits 1 for. The backward report (target -> source format) then
says what the way back did with it. Fields the round trip only *added*
(defaults a target writes) make the result not identical but are not a
failure: the report is about the source's fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..api import read_bytes, write
from ..appmodel.paths import render
from ..document import Document
from ..errors import ConversionError
from ..platform.registry import get_format
from .container_diff import compare_containers
from .field_diff import Change, all_changes
from .output_pair import Compared
from .report import FidelityReport, fidelity_report, read_back
from .view import CanonicalView, view_of

NOT_BACK = ("approximated", "lost", "not_applicable", "kept_default")
"""Fates of fields a round trip does not bring back as they were: the target changes or drops
them, has no place for them, or leaves out a value it applies anyway."""


@dataclass
class Leg:
    target: str
    back_format: str | None = None
    skipped: str | None = None
    forward: FidelityReport | None = None
    backward: FidelityReport | None = None
    changes: list[Change] = field(default_factory=list)
    unpredicted: list[Change] = field(default_factory=list)
    no_way_back: str | None = None
    """Why the target could not be written back in the source format (then the target itself is compared)."""
    moves: dict[str, str] = field(default_factory=dict)
    """Container parts the target holds elsewhere: source path -> path in the target."""
    moved: set[str] = field(default_factory=set)
    """Without a way back: source paths found moved in the target as the report says (``_moved_as_reported``)."""

    @property
    def identical(self) -> bool:
        """Nothing changed, in our reader's view and in what the target application loads."""
        return self.skipped is None and not self.changes and not self.app_losses

    @property
    def only_additions(self) -> bool:
        """Every source field came back equal; the trip only added fields (a target's required
        fields, SillyTavern's flat keys) and the target app loads the source's settings."""
        return (
            self.skipped is None
            and bool(self.changes)
            and all(c.kind == "added" for c in self.changes)
            and not self.app_losses
        )

    @property
    def app_losses(self) -> int:
        """Settings the target application loads differently from the output (``FidelityReport.apps``)."""
        return self.forward.app_losses if self.forward is not None else 0

    @property
    def ok(self) -> bool:
        return not self.unpredicted

    def predicted_paths(self) -> set[str]:
        """Source paths the forward report said do not come back as they were (``NOT_BACK``)."""
        if self.forward is None:
            return set()
        return {i.path for i in self.forward.items if i.fate in NOT_BACK}

    def way_back(self, path: str) -> str | None:
        """What the backward report says about ``path`` (or where a container part went), if anything."""
        if self.backward is None:
            return None
        item = self.backward.item(self.moves.get(path, path))
        return f"{item.fate}: {item.detail}" if item is not None and item.fate in NOT_BACK else None

    def to_json(self) -> dict[str, Any]:
        """The leg as ``POST /roundtrip`` returns it: verdict, both reports' counts, every difference."""
        predicted = self.predicted_paths()
        unpredicted = {id(c) for c in self.unpredicted}
        changes = []
        for change in self.changes:
            item = change.to_json()
            item["predicted"] = item["path"] in predicted
            item["unpredicted"] = id(change) in unpredicted
            if item["unpredicted"]:
                item["way_back"] = self.way_back(item["path"])
            changes.append(item)
        return {
            "target": self.target,
            "skipped": self.skipped,
            "back_format": self.back_format,
            "no_way_back": self.no_way_back,
            "identical": self.identical,
            "only_additions": self.only_additions,
            "ok": self.ok,
            "forward": self.forward.to_json() if self.forward is not None else None,
            "backward_counts": self.backward.counts if self.backward is not None else None,
            "changes": changes,
        }


def roundtrip(doc: Document, target: str, *, chats: Sequence[Any] | None = None, seed: int = 0) -> Leg:
    """``doc`` -> ``target`` -> ``doc.format``.

    When the source format cannot be written (or not from this target), the
    target read back is compared with the source instead (``Leg.no_way_back``).
    """
    fmt = get_format(target)
    leg = Leg(target=fmt.name)
    try:
        data = write(doc, fmt.name)
    except ConversionError as exc:
        leg.skipped = exc.reason
        return leg
    target_doc = read_back(data, fmt.name, doc.source)
    if target_doc is None:
        leg.skipped = f"{fmt.name} output cannot be read back"
        return leg
    forward = Compared.of(doc, target_doc, fmt.name)
    leg.moves = {render(r.path): render(r.now) for r in forward.containers if r.now}
    leg.forward = fidelity_report(doc, fmt.name, data, compared=forward, chats=chats, seed=seed)
    back = _way_back(leg, forward)
    if back is None:  # the target itself is compared with the source
        leg.changes = document_changes(doc, target_doc, views=(forward.source, forward.output))
        leg.moved = _moved_as_reported(leg, doc, target_doc)
    else:
        leg.changes = document_changes(doc, back.output_doc, views=(forward.source, back.output))
    predicted = leg.predicted_paths() | leg.moved
    leg.unpredicted = [c for c in leg.changes if c.kind != "added" and render(c.path) not in predicted]
    return leg


def _way_back(leg: Leg, forward: Compared) -> Compared | None:
    """The target written back in the source's format and read again, with the backward report
    (``leg.back_format``, ``leg.backward``); None, with ``leg.no_way_back`` saying why, when it cannot be."""
    target_doc = forward.output_doc
    assert target_doc is not None
    source_fmt = get_format(forward.source_doc.format)
    if source_fmt.write is None:
        leg.no_way_back = f"{source_fmt.name} cannot be written"
        return None
    try:
        back_bytes = write(target_doc, source_fmt.name)
    except ConversionError as exc:
        leg.no_way_back = exc.reason
        return None
    leg.back_format = source_fmt.name
    back_doc = read_bytes(back_bytes, format=source_fmt.name, filename=forward.source_doc.source)
    back = Compared.of(target_doc, back_doc, source_fmt.name, source=forward.output)
    leg.backward = fidelity_report(target_doc, source_fmt.name, back_bytes, compared=back)
    return back


def _moved_as_reported(leg: Leg, source: Document, target: Document) -> set[str]:
    """Without a way back, a part the report calls moved is checked where it went.

    ``leg.moves`` holds the container parts whose identical bytes
    ``compare_containers`` found at another place in the target; an asset
    descriptor (``card.assets[i]``) counts as moved with its file when the
    only difference is its ``uri``, now the file's new address.
    """
    found = set(leg.moves)
    old = [a.dump() for a in (source.card.data.assets or [])] if source.card is not None else []
    new = [a.dump() for a in (target.card.data.assets or [])] if target.card is not None else []
    for i, (before, after) in enumerate(zip(old, new, strict=False)):
        uri, now = before.get("uri"), after.get("uri")
        rest_equal = {k: v for k, v in before.items() if k != "uri"} == {k: v for k, v in after.items() if k != "uri"}
        moved_file = isinstance(uri, str) and isinstance(now, str) and leg.moves.get(render(("asset", uri)))
        if rest_equal and moved_file and moved_file == render(("asset", now)):
            found.add(render(("card", "assets", i)))
    return found


def document_changes(
    a: Document, b: Document, *, views: tuple[CanonicalView, CanonicalView | None] | None = None
) -> list[Change]:
    """Every difference between two documents: fields (by entry index) and container parts.

    ``views``: ``view_of(a), view_of(b)`` when the caller already has them."""
    va, vb = views if views is not None else (view_of(a), view_of(b))
    assert vb is not None
    changes = all_changes(va, vb)
    for result in compare_containers(va, vb, b.format):
        if result.fate == "lost":
            changes.append(Change(result.path, "removed", note=result.detail))
        elif result.fate != "kept":
            changes.append(Change(result.path, "changed", note=result.detail))
    return changes
