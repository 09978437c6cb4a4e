"""Issue 21, Service: the typed OpenAPI document, the one error model, /docs offline, what a file can become."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from interop.platform.registry import writable_formats
from interop.service.app import STATIC
from interop.service.schemas import ERROR_CODES

from ..conftest import PROJECT_CORPUS, SHARED_CORPUS

CARDS = PROJECT_CORPUS / "cards"
OLD_TOM = CARDS / "old_tom_v1.json"  # a card without a lorebook
ILSE = CARDS / "ilse_v3.json"  # a card with one
BRASSHAVEN = CARDS / "brasshaven.lorebook_v3.json"  # a standalone lorebook
SERAPHINA = SHARED_CORPUS / "cards-png" / "st_default_Seraphina.png"


def upload(path: Path) -> dict[str, Any]:
    return {"file": (path.name, path.read_bytes())}


@pytest.fixture
def spec(client: TestClient) -> dict[str, Any]:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    return response.json()


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    return spec["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else schema


def test_every_endpoint_has_a_typed_answer(spec: dict[str, Any]) -> None:
    """No endpoint answers an untyped object: a model, or a file download with a binary schema."""
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            ok = operation["responses"].get("200") or operation["responses"].get("202")
            assert ok, f"{method} {path}: no success response"
            content = ok["content"]
            for media, body in content.items():
                schema = _resolve(spec, body["schema"])
                assert schema.get("properties") or schema.get("format") == "binary", (path, media, schema)


def test_errors_are_documented_with_the_error_model(spec: dict[str, Any]) -> None:
    error = spec["components"]["schemas"]["ErrorResponse"]
    detail = _resolve(spec, error["properties"]["error"])
    assert set(detail["required"]) == {"code", "file", "location", "reason"}
    assert set(detail["properties"]["code"]["enum"]) == set(ERROR_CODES)
    statuses: set[str] = set()
    for methods in spec["paths"].values():
        for operation in methods.values():
            for status, answer in operation["responses"].items():
                if status.startswith(("4", "5")):
                    statuses.add(status)
                    schema = answer["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorResponse"}, (status, answer)
    assert {"400", "401", "404", "413", "422"} <= statuses
    assert "HTTPValidationError" not in spec["components"]["schemas"]  # FastAPI's 422 shape is not ours
    convert = spec["paths"]["/api/v1/convert"]["post"]["responses"]
    assert {"400", "413", "422"} <= set(convert)


def test_target_is_an_enum_of_the_writable_formats(spec: dict[str, Any]) -> None:
    names = [f.name for f in writable_formats()]
    for path in ("/api/v1/convert", "/api/v1/catalog/items/{ref}/export"):
        operation = next(iter(spec["paths"][path].values()))
        to = next(p for p in operation["parameters"] if p["name"] == "to")
        assert to["schema"]["enum"] == names, path


def test_token_security_scheme_guards_catalog_writes(spec: dict[str, Any]) -> None:
    assert spec["components"]["securitySchemes"]["bearerToken"] == {
        "type": "http",
        "scheme": "bearer",
        "description": spec["components"]["securitySchemes"]["bearerToken"]["description"],
    }
    post = spec["paths"]["/api/v1/migrations"]["post"]
    assert {"bearerToken": []} in post["security"]
    assert "401" in post["responses"]
    assert "security" not in spec["paths"]["/api/v1/convert"]["post"]  # reading needs no token


def test_the_codes_say_what_went_wrong(client: TestClient, tmp_path: Path) -> None:
    def code(response: Any) -> str:
        error = response.json()["error"]
        assert set(error) == {"code", "file", "location", "reason"}
        return error["code"]

    assert code(client.post("/api/v1/convert?to=docx", files=upload(ILSE))) == "unknown_target"
    assert code(client.post("/api/v1/convert?to=sillytavern-world", files=upload(OLD_TOM))) == "cannot_convert"
    assert code(client.post("/api/v1/convert?to=risu-lorebook&strict=true", files=upload(ILSE))) == "lossy_conversion"
    garbage = {"file": ("x.json", b"not json at all")}
    assert code(client.post("/api/v1/inspect", files=garbage)) in {"unknown_format", "corrupt_input", "bad_format"}
    assert code(client.post("/api/v1/convert", files=upload(ILSE))) == "invalid_request"
    assert code(client.get("/api/v1/catalog/items/card:99")) == "not_found"
    assert code(client.get("/api/v1/catalog/items/frog:1")) == "bad_reference"
    assert code(client.get("/api/v1/nothing")) == "not_found"
    bad_picture = {**upload(ILSE), "image": ("p.png", b"GIF is not what this is")}
    response = client.post("/api/v1/convert?to=png", files=bad_picture)
    assert (response.status_code, code(response)) == (400, "bad_format")


def test_token_refusal_and_body_limit_use_the_model(make_client: Any) -> None:
    client = make_client(token="s3cret")
    refused = client.post("/api/v1/migrations", files={"files": ("a.json", ILSE.read_bytes())})
    assert (refused.status_code, refused.json()["error"]["code"]) == (401, "unauthorized")
    client = make_client(max_upload_bytes=4096)
    big = client.post("/api/v1/inspect", files={"file": ("big.json", b"x" * 10_000)})
    assert (big.status_code, big.json()["error"]["code"]) == (413, "too_large")


def test_docs_are_served_from_our_own_files(client: TestClient) -> None:
    """/docs names no other host (works offline, CSP 'self'), and every asset it loads is served here."""
    page = client.get("/docs")
    assert page.status_code == 200
    assert "cdn" not in page.text and "http" not in page.text
    assert "'unsafe-inline'" not in page.headers["content-security-policy"].split("script-src", 1)[1].split(";")[0]
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    for asset in assets:
        answer = client.get(asset)
        assert answer.status_code == 200, asset
        assert len(answer.content) > 100 or asset.endswith("docs.js"), asset
    assert (STATIC / "swagger-ui" / "LICENSE").read_text().lstrip().startswith("Apache License")


BIG_WORLD = SHARED_CORPUS / "st-worldinfo" / "choral_Fantasy_RPG_V008_ChickenMadness.json"  # 85 entries
NOVELAI_STORY = PROJECT_CORPUS / "novelai" / "canals_of_veyra.story"  # a story export: novelai-story is offered


@pytest.mark.parametrize(
    ("path", "book_targets"),
    [(OLD_TOM, False), (ILSE, True), (BRASSHAVEN, True), (BIG_WORLD, True), (NOVELAI_STORY, True)],
    ids=["card-without-book", "card-with-book", "lorebook", "big-world", "novelai-story"],
)
def test_writable_targets_are_what_converts(client: TestClient, path: Path, book_targets: bool) -> None:
    """Every target offered converts; every target withheld fails (a card without a book has no lorebook targets)."""
    if not path.exists():
        pytest.skip(f"{path} not found (is ../shared beside the repo?)")
    offered = client.post("/api/v1/inspect", files=upload(path)).json()["writable_targets"]
    book_only = {"lorebook_v3", "sillytavern-world", "risu-lorebook", "agnai-book", "novelai-lorebook"}
    assert (book_only <= set(offered)) is book_targets
    assert not (book_only & set(offered)) or book_targets
    for fmt in writable_formats():
        status = client.post(f"/api/v1/convert?to={fmt.name}", files=upload(path)).status_code
        assert (status == 200) is (fmt.name in offered), (fmt.name, status)


def test_app_choice_picks_the_format_for_the_input(client: TestClient) -> None:
    apps = {a["id"]: a for a in client.get("/api/v1/formats").json()["apps"]}
    assert [a["label"] for a in apps.values()] == ["SillyTavern", "RisuAI", "Agnai", "NovelAI", "any CCv3 app"]
    card = client.post("/api/v1/inspect", files=upload(OLD_TOM)).json()
    book = client.post("/api/v1/inspect", files=upload(BRASSHAVEN)).json()
    with_book = client.post("/api/v1/inspect", files=upload(ILSE)).json()
    assert book["app_targets"]["sillytavern"] == "sillytavern-world"
    assert book["app_targets"]["risu"] == "risu-lorebook"
    assert card["app_targets"]["sillytavern"] == "sillytavern-card"  # no picture: ST's JSON card
    assert card["app_targets"]["novelai"] is None  # NovelAI has no cards and this one has no book
    assert with_book["app_targets"]["novelai"] == "novelai-lorebook"
    for info in (card, book, with_book):  # whatever the page picks, the input can become
        for target in info["app_targets"].values():
            assert target is None or target in info["writable_targets"]


def test_picture_upload_goes_into_the_png(client: TestClient) -> None:
    if not SERAPHINA.exists():
        pytest.skip(f"{SERAPHINA} not found (is ../shared beside the repo?)")
    picture = SERAPHINA.read_bytes()
    files = {**upload(OLD_TOM), "image": ("face.png", picture)}
    png = client.post("/api/v1/convert?to=png", files=files)
    assert png.status_code == 200, png.text
    back = client.post("/api/v1/inspect?picture=true", files={"file": ("out.png", png.content)}).json()
    assert back["name"] == client.post("/api/v1/inspect", files=upload(OLD_TOM)).json()["name"]
    # The IDAT of the uploaded picture is carried over: the card shows that picture.
    idat = picture[picture.index(b"IDAT") - 4 :][:64]
    assert idat in png.content


def test_inspect_shows_what_is_in_the_file(client: TestClient) -> None:
    from interop import read

    doc = read(ILSE)
    info = client.post("/api/v1/inspect?content=true", files=upload(ILSE)).json()["content"]
    assert info["description"] == doc.card.data.description
    assert info["first_mes"] == doc.card.data.first_mes
    assert [e["content"] for e in info["entries"]] == [e.content for e in doc.book.entries]
    assert [e["keys"] for e in info["entries"]] == [e.keys for e in doc.book.entries]
    assert all(e["tokens"] > 0 for e in info["entries"] if e["content"].strip())
    assert info["book_tokens"] == sum(e["tokens"] for e in info["entries"])


def test_playground_scan_depth_and_budget_reach_every_app(client: TestClient) -> None:
    chats = PROJECT_CORPUS / "chats"
    fields = {"chat_text": "User: Where can I find Roderick?\nMira: At the docks.", "budget": "50"}
    book = {"book": ("harbor.json", (chats / "ccv3_harbor.json").read_bytes())}
    answer = client.post("/api/v1/activate", files=book, data=fields).json()
    assert {p: r["budget"] for p, r in answer["results"].items()} == dict.fromkeys(answer["platforms"], 50)
    default = client.post("/api/v1/activate", files=book, data={"chat_text": fields["chat_text"]}).json()
    assert all(default["results"][p]["budget"] != 50 for p in default["platforms"])
    too_deep = client.post("/api/v1/activate", files=book, data={**fields, "scan_depth": "-1"})
    assert too_deep.status_code == 422 and too_deep.json()["error"]["code"] == "invalid_request"


def test_catalog_picture_is_the_cards_image_or_a_placeholder(client: TestClient) -> None:
    if not SERAPHINA.exists():
        pytest.skip(f"{SERAPHINA} not found (is ../shared beside the repo?)")
    response = client.post(
        "/api/v1/migrations", files=[("files", (SERAPHINA.name, SERAPHINA.read_bytes()))], data={"to": "ccv3"}
    )
    assert response.status_code == 202
    import time

    for _ in range(200):
        if client.get("/api/v1/migrations/" + response.json()["id"]).json()["status"] in ("done", "failed"):
            break
        time.sleep(0.05)
    picture = client.get("/api/v1/catalog/items/card:1/picture")
    assert picture.headers["content-type"] == "image/png" and picture.content.startswith(b"\x89PNG")
    book = client.get("/api/v1/catalog/items/book:1/picture")
    assert book.headers["content-type"] == "image/svg+xml" and book.headers["x-interop-picture"] == "none"
