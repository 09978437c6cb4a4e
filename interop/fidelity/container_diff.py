"""Container-level fields: the picture, embedded asset files and opaque members.

Compared by bytes, not by descriptor: an asset whose ``card.assets`` entry
survived but whose file did not is lost, and one that moved to another URI
(``embeded://...`` -> ``__asset:0``) is translated, with the new address.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from ..appmodel.paths import Path
from ..containers.png import is_png, iter_chunks
from ..errors import InteropError
from ..mappings import Fate
from ..memo import memoized
from .field_diff import shown_uri
from .view import CanonicalView


@dataclass(frozen=True)
class ContainerResult:
    path: Path
    fate: Fate
    detail: str
    now: Path | None = None
    """Where a translated part went (``asset[...]`` or ``image``)."""


_PIXEL_CHUNKS = frozenset({"IHDR", "PLTE", "IDAT", "acTL", "fcTL", "fdAT"})


def _digest(data: bytes) -> str:
    """Identity of a picture or file: for a PNG, its pixel chunks only.

    A PNG card written again carries new text chunks (the card itself) but, as
    the PNG writer never re-encodes, the same IHDR/PLTE/IDAT (and APNG frames).
    """
    if is_png(data):
        digest = hashlib.sha256()
        try:
            for chunk in iter_chunks(data):
                if chunk.type in _PIXEL_CHUNKS:
                    digest.update(chunk.type.encode("ascii"))
                    digest.update(chunk.data)
            return "png:" + digest.hexdigest()
        except InteropError:
            pass
    return hashlib.sha256(data).hexdigest()


def container_paths(view: CanonicalView) -> list[Path]:
    paths: list[Path] = []
    if view.image is not None:
        paths.append(("image",))
    paths.extend(("asset", uri) for uri in view.assets)
    paths.extend(("member", name) for name in view.members)
    return paths


def compare_containers(source: CanonicalView, output: CanonicalView | None, target: str) -> Iterator[ContainerResult]:
    """One result per picture, asset and member of ``source``: did its bytes reach ``output``?"""
    out_assets = output.assets if output is not None else {}
    digest_of = _digest
    picture: str | None = None
    if source.image is not None:
        # the source's picture is hashed once for all its targets (a card picture is often megabytes),
        # and an output part that is the picture again (PNG -> CCv3 data URL) is not hashed again
        image = source.image
        picture = memoized("fidelity_digest", image, (), lambda: _digest(image))

        def digest_of(data: bytes) -> str:
            return picture if data == image else _digest(data)

    by_digest: dict[str, str] = {}
    for uri, data in out_assets.items():
        by_digest.setdefault(digest_of(data), uri)
    out_picture = digest_of(output.image) if output is not None and output.image is not None else None
    member_by_digest: dict[str, str] = {}
    for name, data in (output.members if output is not None else {}).items():
        member_by_digest.setdefault(digest_of(data), name)
    if source.image is not None:
        if picture == out_picture:
            yield ContainerResult(("image",), "kept", "")
        elif picture in by_digest:
            new_uri = by_digest[picture]
            yield ContainerResult(("image",), "translated", f"now asset {shown_uri(new_uri)}", ("asset", new_uri))
        elif out_picture is not None:
            yield ContainerResult(("image",), "lost", f"{target} output carries a different picture")
        elif output is not None and output.kind == "lorebook" and source.kind == "card":
            yield ContainerResult(("image",), "not_applicable", f"a {target} lorebook holds no character picture")
        else:
            yield ContainerResult(("image",), "lost", f"{target} holds no picture")
    for uri, data in source.assets.items():
        yield _asset_result(uri, data, out_assets, by_digest, out_picture, member_by_digest, target)
    out_members = output.members if output is not None else {}
    for name, data in source.members.items():
        path = ("member", name)
        if out_members.get(name) == data:
            yield ContainerResult(path, "kept", "")
        elif name in out_members:
            yield ContainerResult(path, "lost", f"{target} output holds a different {name}")
        else:
            yield ContainerResult(path, "lost", f"{target} has no place for container member {name}")


def _asset_result(
    uri: str,
    data: bytes,
    out_assets: dict[str, bytes],
    by_digest: dict[str, str],
    out_picture: str | None,
    member_by_digest: dict[str, str],
    target: str,
) -> ContainerResult:
    """Where one embedded asset file of the source went in the output."""
    path: Path = ("asset", uri)
    digest = memoized("fidelity_digest", data, (), lambda: _digest(data))  # a source file: once for all targets
    same_place = out_assets.get(uri)
    if same_place == data:
        return ContainerResult(path, "kept", "")
    if same_place is not None and _digest(same_place) == digest:
        return ContainerResult(path, "kept", "same picture (PNG text chunks differ)")
    if digest in by_digest:
        return ContainerResult(path, "translated", f"now {by_digest[digest]}", ("asset", by_digest[digest]))
    if digest == out_picture:
        return ContainerResult(path, "translated", "now the card picture", ("image",))
    if digest in member_by_digest:
        detail = (
            f"only as the {target} member {member_by_digest[digest]}: no card field references it, so no "
            "app importing the file loads it, and no reader maps it back to an asset"
        )
        return ContainerResult(path, "lost", detail)
    if not out_assets:
        return ContainerResult(path, "lost", f"{target} carries no embedded asset files ({len(data)} bytes dropped)")
    return ContainerResult(path, "lost", f"not among the {len(out_assets)} asset files of the {target} output")
