"""The order formats are listed in (``interop formats``, ``/api/v1/formats``, detection ties) is
the order before the per-platform packages: platforms by ``Platform.rank``, each platform's
formats in the order its package registers them. Checked by hand against the listing of the
flat ``interop/formats/*.py`` layout (commit 636e904) when the packages were introduced; each
platform's chat formats (issue 20) are registered after its card and lorebook formats."""

from __future__ import annotations

from interop.formats import all_formats, all_platforms

BEFORE_PACKAGES = [
    "ccv3", "ccv2", "ccv1", "lorebook_v3", "character_book", "png", "charx",
    "agnai-book", "agnai-character", "agnai-card", "agnai-chat",
    "novelai-lorebook", "novelai-scenario", "novelai-story", "novelai-png",
    "sillytavern-world", "sillytavern-card", "sillytavern-chat",
    "risu-lorebook", "risum", "risu-charx", "risu-character", "risu-chat", "risu-all-chats",
    "pygmalion-json", "textgen-yaml", "byaf",
]  # fmt: skip


def test_listing_order_is_unchanged_by_the_packages() -> None:
    built_in = {p.name for p in all_platforms() if p.rank < 100}
    assert [f.name for f in all_formats() if f.platform in built_in] == BEFORE_PACKAGES


def test_platforms_list_by_rank() -> None:
    ranks = [p.rank for p in all_platforms()]
    assert ranks == sorted(ranks)
