"""NovelAI: lorebooks, scenarios, stories and lorebook PNGs."""

from __future__ import annotations

from ..registry import Platform, register_platform
from .story_card import card_of

# card_of: the card a scenario/story document stands for (the fidelity report compares it as a card).
PLATFORM = register_platform(Platform(name="novelai", title="NovelAI", rank=20, services={"card_of": card_of}))

# Registration order is listing order: import one module per line, in this order.
# isort: skip_file
from . import lorebook  # noqa: E402, F401
from . import containers  # noqa: E402, F401
