"""The default avatar's render cache gives the bytes a fresh render gives (key: the letter and colour)."""

from __future__ import annotations

from typing import Any

import pytest

from interop.cardkit import card_image


@pytest.mark.parametrize("name", ["Mirei", "mirei", "Rook", "", None, "  élan", "\ud83d broken", "魔法少女"])
def test_a_cached_avatar_equals_a_fresh_render(name: str | None, monkeypatch: Any) -> None:
    cached = card_image._rendered_avatar
    cached.cache_clear()
    keys: list[tuple[str, tuple[int, int, int]]] = []

    def spy(label: str, background: tuple[int, int, int]) -> bytes:
        keys.append((label, background))
        return cached(label, background)

    monkeypatch.setattr(card_image, "_rendered_avatar", spy)
    first, again = card_image.default_avatar(name), card_image.default_avatar(name)
    assert cached.cache_info().hits == 1 and keys[0] == keys[1]
    assert first == again == cached.__wrapped__(*keys[0])  # __wrapped__: rendered afresh, no cache


def test_names_with_another_letter_or_colour_do_not_share_a_picture() -> None:
    assert card_image.default_avatar("Mirei") != card_image.default_avatar("Rook")
    assert card_image.default_avatar("Mirei") != card_image.default_avatar("Mireia")  # same letter, other colour
