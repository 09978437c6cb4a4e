"""Character Card V1/V2/V3 JSON, lorebook_v3 / character_book JSON, PNG/APNG cards and CHARX:
the spec formats every app exchanges."""

from __future__ import annotations

from ..registry import Platform, register_platform

PLATFORM = register_platform(Platform(name="ccv3", title="Character Card V3 (and V1/V2) files", rank=0))

# Registration order is listing order: import one module per line, in this order.
# isort: skip_file
from . import card_json  # noqa: E402, F401
from . import lorebook_json  # noqa: E402, F401
from . import png_card  # noqa: E402, F401
from . import charx_card  # noqa: E402, F401
