"""A lone surrogate in a card (it reads, as in the apps) is answered as JSON.stringify writes it,
not with a 500 (issue 23, item 2, service side)."""

from __future__ import annotations

import json
from typing import Any

from tests.hostile.cases import card_json


def test_lone_surrogates_are_escaped_in_json_answers(client: Any) -> None:
    data = json.dumps(card_json(name="half \ud800 emoji", description="\udfff")).encode("ascii")
    answer = client.post("/api/v1/inspect", files={"file": ("surrogate.json", data, "application/json")})
    assert answer.status_code == 200
    assert b"\\ud800" in answer.content  # escaped: the body is valid UTF-8
    answer.content.decode("utf-8")
    assert json.loads(answer.content)["name"] == "half \ud800 emoji"
    converted = client.post(
        "/api/v1/convert",
        params={"to": "ccv3"},
        files={"file": ("surrogate.json", data, "application/json")},
        headers={"accept": "application/json"},
    )
    assert converted.status_code == 200 and json.loads(converted.content)["filename"]


def test_plain_answers_stay_utf8(client: Any) -> None:
    data = json.dumps(card_json(name="Zoë 雪"), ensure_ascii=False).encode("utf-8")
    answer = client.post("/api/v1/inspect", files={"file": ("zoe.json", data, "application/json")})
    assert "Zoë 雪".encode() in answer.content
