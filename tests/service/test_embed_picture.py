"""``POST /api/v1/convert?embed_picture=false`` (issue 19 item 5): ccv3 leaves the card picture out."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from tests.conftest import PROJECT_CORPUS

V2_PNG = PROJECT_CORPUS / "png" / "v2_chara_only.png"


def test_convert_keeps_the_picture_unless_told(client: TestClient) -> None:
    files = {"file": (V2_PNG.name, V2_PNG.read_bytes())}
    kept = client.post("/api/v1/convert?to=ccv3", files=files)
    left = client.post("/api/v1/convert?to=ccv3&embed_picture=false", files=files)
    assert kept.status_code == left.status_code == 200, left.text
    (icon,) = json.loads(kept.content)["data"]["assets"]
    assert (icon["name"], icon["uri"][:22]) == ("main", "data:image/png;base64,")
    assert "assets" not in json.loads(left.content)["data"]
