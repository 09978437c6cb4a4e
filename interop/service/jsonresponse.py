"""JSON answers that survive lone surrogates: a card may carry ``"\\ud800"`` (it reads, as in the
apps), and Starlette's and pydantic's encoders then fail with a 500. Written as UTF-8 when it can
be; otherwise with every non-ASCII character escaped, which is what ``JSON.stringify`` gives for
a lone surrogate (``"\\ud800"``) and what any JSON parser reads back."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse


class SafeJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except UnicodeEncodeError:
            return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")
