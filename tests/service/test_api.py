"""``/api/v1`` with FastAPI's TestClient: every endpoint, the corpora, and bad inputs.

Bad input always gets a 4xx status and ``{"error": {"code", "file", "location", "reason"}}``
with a one-line reason, never a 500; the API says what the CLI says.
"""

from __future__ import annotations

import io
import json
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from interop import read, write
from interop.catalog import queries as catalog_queries
from interop.cli import cli
from interop.mappings import FATES
from interop.platform.registry import writable_formats
from interop.service import api as service_api
from interop.service.schemas import ERROR_CODES

from ..conftest import PROJECT_CORPUS, corpus_params, project_files, shared_files

CARDS = PROJECT_CORPUS / "cards"
CHATS = PROJECT_CORPUS / "chats"
ILSE = CARDS / "ilse_v3.json"
SAMPLES = [
    p
    for p in project_files("cards", "agnai", "charx", "novelai", "risu", "sillytavern", "png")
    if p.suffix not in {".py", ".md"}
]
REAL = shared_files("cards-json", "cards-png", "charx", "lorebook-v2", "novelai", "risu", "st-worldinfo")


def upload(path: Path, name: str | None = None) -> dict[str, Any]:
    return {"file": (name or path.name, path.read_bytes())}


def cli_json(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def assert_error(response: Any, status: int, *fragments: str) -> dict[str, Any]:
    """The documented error shape with a one-line reason that says what is wrong."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert set(error) == {"code", "file", "location", "reason"}
    assert error["code"] in ERROR_CODES, error
    assert service_api.error_status(error["code"]) == status, error  # the code and the status agree
    assert error["reason"] and "\n" not in error["reason"]
    text = " ".join(str(v) for v in error.values())
    for fragment in fragments:
        assert fragment in text, error
    return error


# --- formats, inspect -------------------------------------------------------------------------------


def test_formats_lists_the_registry(client: TestClient) -> None:
    data = client.get("/api/v1/formats").json()
    rows = {f["name"]: f for f in data["formats"]}
    assert {f.name for f in writable_formats()} == {n for n, f in rows.items() if f["write"]}
    assert rows["risu-character"] == {**rows["risu-character"], "read": True, "write": False}
    # Alphabetical; a platform added later (one package) joins the built-ins.
    assert data["platforms"] == sorted(data["platforms"])
    assert {"agnai", "ccv3", "risu", "sillytavern"} <= set(data["platforms"])


@pytest.mark.parametrize("path", corpus_params(SAMPLES + REAL, "sample"))
def test_inspect_says_what_the_cli_says(client: TestClient, path: Path) -> None:
    response = client.post("/api/v1/inspect", files=upload(path))
    assert response.status_code == 200, response.text
    got = response.json()
    expected = cli_json("inspect", "--json", str(path))[0]
    assert got.pop("file") == path.name
    expected.pop("file")
    tags = got.pop("tags")
    assert got.pop("writable_targets")
    assert set(got.pop("app_targets")) == {"sillytavern", "risu", "agnai", "novelai", "ccv3"}
    assert isinstance(got.pop("has_picture"), bool)
    assert got == json.loads(json.dumps(expected))
    assert isinstance(tags, list)


def test_inspect_picture_is_a_data_url(client: TestClient) -> None:
    card = next(p for p in SAMPLES if p.suffix == ".png")
    info = client.post("/api/v1/inspect?picture=true", files=upload(card)).json()
    assert info["picture"].startswith("data:image/png;base64,")


# --- convert ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["ccv2", "risu-lorebook", "sillytavern-world", "png", "charx"])
def test_convert_download_equals_the_cli_output(client: TestClient, tmp_path: Path, target: str) -> None:
    response = client.post(f"/api/v1/convert?to={target}", files=upload(ILSE))
    assert response.status_code == 200, response.text
    out = tmp_path / "cli.out"
    result = CliRunner().invoke(cli, ["convert", str(ILSE), "--to", target, "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert response.content == out.read_bytes()
    # issue 21: a target named as its suffix is not repeated (ilse_v3.png, not ilse_v3.png.png)
    name = {"png": "ilse_v3.png", "charx": "ilse_v3.charx"}.get(target, f"ilse_v3.{target}.json")
    assert response.headers["content-disposition"].startswith(f'attachment; filename="{name}"')
    fates = dict(part.split("=") for part in response.headers["x-interop-fidelity"].split(", "))
    assert tuple(fates) == FATES


@pytest.mark.parametrize("path", corpus_params(REAL, "shared corpus"))
def test_convert_json_carries_the_report_the_cli_writes(client: TestClient, tmp_path: Path, path: Path) -> None:
    response = client.post(
        "/api/v1/convert?to=risu-lorebook", files=upload(path), headers={"Accept": "application/json"}
    )
    out, report = tmp_path / "out", tmp_path / "report.json"
    result = CliRunner().invoke(
        cli, ["convert", str(path), "--to", "risu-lorebook", "-o", str(out), "--report", str(report), "-q"]
    )
    if result.exit_code == 3:  # a card without a lorebook: the CLI refuses, so must the API (422)
        assert "no lorebook" in result.stderr
        assert_error(response, 422, path.name, "no lorebook")
        return
    assert result.exit_code == 0, result.output
    assert response.status_code == 200, response.text
    data = response.json()
    import base64

    assert base64.b64decode(data["file_base64"]) == out.read_bytes()
    expected = json.loads(report.read_text())
    expected["source"]["file"] = path.name
    assert data["report"] == expected
    assert data["filename"] == f"{path.stem}.risu-lorebook.json"
    assert data["media_type"] == "application/json"


def test_convert_strict_refuses_losses_with_the_report(client: TestClient) -> None:
    response = client.post("/api/v1/convert?to=risu-lorebook&strict=true", files=upload(ILSE))
    error = assert_error(response, 422, "strict:", "lost field(s)")
    assert error["file"] == "ilse_v3.json"
    assert response.json()["report"]["has_losses"] is True
    assert client.post("/api/v1/convert?to=ccv3&strict=true", files=upload(ILSE)).status_code == 200


def test_convert_unknown_or_unwritable_target(client: TestClient) -> None:
    assert_error(client.post("/api/v1/convert?to=docx", files=upload(ILSE)), 400, "unknown target format 'docx'")
    assert_error(client.post("/api/v1/convert?to=risu-character", files=upload(ILSE)), 400, "cannot be written")
    assert_error(client.post("/api/v1/convert", files=upload(ILSE)), 422, "query.to")


@pytest.mark.parametrize(
    ("name", "saved"),
    [
        ("../../etc/passwd.json", "passwd.ccv3.json"),
        ("C:\\Users\\me\\card.json", "card.ccv3.json"),
        ('we"ird\r\nname;.json', "we_irdname_.ccv3.json"),
        ("/", "upload.ccv3.json"),
        ("Élise ☕.json", "Élise _.ccv3.json"),
    ],
)
def test_path_like_names_are_only_labels(client: TestClient, name: str, saved: str) -> None:
    response = client.post("/api/v1/convert?to=ccv3", files=upload(ILSE, name))
    assert response.status_code == 200, response.text
    disposition = response.headers["content-disposition"]
    assert "/" not in disposition.split("filename*=")[0] and "\\" not in disposition and "\n" not in disposition
    from urllib.parse import unquote

    assert unquote(disposition.split("filename*=UTF-8''")[1]) == saved


def test_a_path_string_is_not_a_file(client: TestClient) -> None:
    """No request names a server file: a form field holding a path is not an upload."""
    response = client.post("/api/v1/inspect", data={"file": "/etc/passwd"})
    assert_error(response, 422, "body.file")


# --- bad inputs -------------------------------------------------------------------------------------


def _charx(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def _bad_inputs() -> list[Any]:
    card = ILSE.read_bytes()
    png = next((p for p in SAMPLES if p.suffix == ".png"), None)
    cases = [
        pytest.param("truncated.json", card[: len(card) // 2], 400, "invalid JSON", id="truncated-json"),
        pytest.param("notes.txt", b"hello, this is not a card\n", 400, "not a known card", id="wrong-format"),
        pytest.param("empty.json", b"", 400, "file is empty", id="empty"),
        pytest.param("nul.bin", b"\x00\xff" * 50, 400, "not a known card", id="binary"),
        pytest.param("shape.json", b'{"spec": "chara_card_v3", "data": "nope"}', 400, "data", id="wrong-shape"),
        pytest.param("deep.json", b"[" * 5000 + b"]" * 5000, 413, "deep", id="deep-nesting"),
        pytest.param(
            "bomb.charx",
            _charx({"card.json": card, "assets/zero.bin": b"\0" * (20 * 1024 * 1024)}),
            413,
            "bomb.charx",
            id="zip-bomb",
        ),
        pytest.param("slip.charx", _charx({"card.json": card, "../../evil.sh": b"x"}), 400, "zip-slip", id="zip-slip"),
        pytest.param("cut.charx", _charx({"card.json": card})[:-30], 400, "cut.charx", id="truncated-zip"),
    ]
    if png is not None:
        data = png.read_bytes()
        cases.append(pytest.param("cut.png", data[: len(data) * 2 // 3], 400, "cut.png", id="truncated-png"))
    return cases


@pytest.mark.parametrize(("name", "data", "status", "fragment"), _bad_inputs())
@pytest.mark.parametrize("endpoint", ["inspect", "convert?to=ccv3", "validate", "roundtrip?via=ccv2"])
def test_bad_input_is_a_4xx_with_one_line_reason(
    client: TestClient, endpoint: str, name: str, data: bytes, status: int, fragment: str
) -> None:
    response = client.post(f"/api/v1/{endpoint}", files={"file": (name, data)})
    assert_error(response, status, fragment)


def test_oversized_body_is_refused_before_parsing(make_client: Any) -> None:
    client = make_client(max_upload_bytes=4096)
    big = {"file": ("big.json", b" " * 5000 + ILSE.read_bytes())}
    assert_error(client.post("/api/v1/inspect", files=big), 413, "exceeds the limit of 4096 bytes")

    def chunks() -> Any:  # no Content-Length: counted as it arrives
        for _ in range(10):
            yield b"x" * 1000

    response = client.post(
        "/api/v1/inspect", content=chunks(), headers={"content-type": "multipart/form-data; boundary=b"}
    )
    assert_error(response, 413, "exceeds the limit")


def test_garbled_multipart_is_400(client: TestClient) -> None:
    response = client.post(
        "/api/v1/inspect", content=b"--b\r\nnonsense", headers={"content-type": "multipart/form-data; boundary=b"}
    )
    assert response.status_code in (400, 422)
    assert "error" in response.json()


def test_inputs_are_not_stored(client: TestClient, tmp_path: Path) -> None:
    before = sorted(tmp_path.rglob("*"))
    for endpoint in ("inspect", "convert?to=png", "validate", "roundtrip?via=charx"):
        assert client.post(f"/api/v1/{endpoint}", files=upload(ILSE)).status_code == 200
    assert sorted(tmp_path.rglob("*")) == before  # not even a catalog was created


# --- roundtrip, diff, validate ----------------------------------------------------------------------


def test_roundtrip_legs(client: TestClient) -> None:
    data = client.post("/api/v1/roundtrip?via=ccv2&via=risu-lorebook", files=upload(ILSE)).json()
    legs = {leg["target"]: leg for leg in data["legs"]}
    assert data["format"] == "ccv3" and data["ok"] is True
    # ccv2 adds SillyTavern's flat entry keys and the V3-required fields: every source field comes back.
    assert legs["ccv2"]["only_additions"] is True and legs["ccv2"]["back_format"] == "ccv3"
    assert legs["ccv2"]["changes"] and all(c["kind"] == "added" for c in legs["ccv2"]["changes"])
    risu = legs["risu-lorebook"]
    assert risu["identical"] is False and risu["ok"] is True
    assert all(c["predicted"] or c["kind"] == "added" for c in risu["changes"])
    assert risu["forward"]["counts"]["lost"] > 0


def test_roundtrip_default_is_every_writable_target(client: TestClient) -> None:
    data = client.post("/api/v1/roundtrip", files=upload(CARDS / "brasshaven.lorebook_v3.json")).json()
    assert [leg["target"] for leg in data["legs"]] == [f.name for f in writable_formats()]


def test_diff(client: TestClient) -> None:
    same = client.post("/api/v1/diff", files={"a": ("a.json", ILSE.read_bytes()), "b": ("b.json", ILSE.read_bytes())})
    assert same.json()["identical"] is True
    other = CARDS / "ilse_v3_1_newer.json"
    data = client.post(
        "/api/v1/diff", files={"a": ("a.json", ILSE.read_bytes()), "b": ("b.json", other.read_bytes())}
    ).json()
    assert data["identical"] is False and data["count"] > 0
    assert data["a"] == {"file": "a.json", "format": "ccv3"}
    assert_error(client.post("/api/v1/diff", files={"a": ("a.json", ILSE.read_bytes())}), 422, "body.b")


def test_diff_says_what_the_app_loads(client: TestClient) -> None:
    """As ``interop diff``: B's own bytes are judged by its app (ST reads a stale flat ``depth``)."""
    v2 = json.loads(write(read(ILSE), "ccv2"))
    v2["data"]["character_book"]["entries"][0]["extensions"]["depth"] = 9
    files = {"a": ("a.json", ILSE.read_bytes()), "b": ("b.json", json.dumps(v2).encode())}
    data = client.post("/api/v1/diff", files=files).json()
    [verdict] = data["apps"]
    assert verdict["app"] == "sillytavern" and any("depth = 9" in f["detail"] for f in verdict["findings"])
    assert data["identical"] is False


def test_validate_matches_the_cli(client: TestClient, tmp_path: Path) -> None:
    bad = tmp_path / "missing.json"
    bad.write_text(json.dumps({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "X"}}))
    data = client.post("/api/v1/validate?strict=true", files=upload(bad)).json()
    assert data["status"] == "invalid"
    result = CliRunner().invoke(cli, ["validate", "--strict", str(bad)])
    assert result.exit_code == 1
    for problem in data["problems"]:
        assert f"error: {problem['path']}: {problem['message']}" in result.stdout
    lenient = client.post("/api/v1/validate", files=upload(bad)).json()
    assert lenient["status"] == "ok" and {p["severity"] for p in lenient["problems"]} == {"warning"}


# --- activate ---------------------------------------------------------------------------------------


def _activate(client: TestClient, book: Path, chat: bytes | None = None, **fields: Any) -> Any:
    files: list[Any] = [("book", (book.name, book.read_bytes()))]
    if chat is not None:
        files.append(("chat", ("chat.jsonl", chat)))
    return client.post("/api/v1/activate", files=files, data=fields)


def test_activate_matches_the_cli_trace_per_platform(client: TestClient) -> None:
    book, chat = CHATS / "ccv3_harbor.json", CHATS / "harbor.jsonl"
    data = _activate(client, book, chat.read_bytes()).json()
    assert data["platforms"][:3] == ["sillytavern", "risu", "agnai"]  # the built-in apps first
    for platform in data["platforms"]:
        expected = cli_json("activate", str(book), "--chat", str(chat), "--platform", platform, "--trace", "--json")
        assert data["results"][platform] == expected
    assert data["differences"] == sum(row["differs"] for row in data["rows"]) > 0
    # The regex-keyed entry: SillyTavern matches it; Risu tests regex keys on the oldest message only.
    row = next(r for r in data["rows"] if (r["cells"]["sillytavern"]["key"] or "").startswith("/where can i find"))
    assert row["differs"] and row["cells"]["sillytavern"]["fired"] and not row["cells"]["risu"]["fired"]


def test_activate_pasted_text_chat_and_one_platform(client: TestClient) -> None:
    data = _activate(
        client,
        CHATS / "ccv3_harbor.json",
        chat_text="User: Where can I find Roderick?\nMira: At the docks.\nstill Mira",
        platform="risu",
    ).json()
    assert data["platforms"] == ["risu"] and data["messages"] == 2
    assert data["results"]["risu"]["activated"]


@pytest.mark.parametrize(
    ("fields", "status", "fragment"),
    [
        ({}, 400, "no chat given"),
        ({"chat_text": "User: hi", "platform": "kobold"}, 400, "unknown platform 'kobold'"),
        ({"chat_text": '{"text": 1}'}, 400, "'text' must be a string"),
    ],
)
def test_activate_bad_requests(client: TestClient, fields: dict[str, str], status: int, fragment: str) -> None:
    assert_error(_activate(client, CHATS / "ccv3_harbor.json", **fields), status, fragment)


def test_activate_card_without_book(client: TestClient, tmp_path: Path) -> None:
    card = tmp_path / "nobook.json"
    card.write_text(json.dumps({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "X"}}))
    assert_error(_activate(client, card, chat_text="User: hi"), 422, "holds no lorebook")


# --- catalog and migrations -------------------------------------------------------------------------


def wait_job(client: TestClient, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = client.get(f"/api/v1/migrations/{job_id}").json()
        if state["status"] in ("done", "failed"):
            return state
        time.sleep(0.05)
    raise AssertionError("migration did not finish")


def migrate(client: TestClient, files: list[tuple[str, bytes]], to: str = "ccv3,risu-lorebook", **kw: Any) -> Any:
    return client.post("/api/v1/migrations", files=[("files", f) for f in files], data={"to": to}, **kw)


def test_catalog_starts_empty(client: TestClient) -> None:
    assert client.get("/api/v1/catalog/items").json() == {
        "items": [],
        "page": 1,
        "per_page": 50,
        "has_more": False,
        "entries": [],
        "total": 0,  # catalog.queries.count_items (branch cli): "showing N of M"
    }
    assert client.get("/api/v1/catalog/stats").json()["cards"] == 0
    assert client.get("/api/v1/migrations").json() == {"jobs": []}


def test_migrate_browse_show_export(client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [(p.name, p.read_bytes()) for p in (ILSE, CARDS / "brasshaven.lorebook_v3.json")]
    files.append(("notes.txt", b"not a card"))
    response = migrate(client, files)
    assert response.status_code == 202, response.text
    job = response.json()
    assert job["status_url"].endswith(f"/api/v1/migrations/{job['id']}")
    state = wait_job(client, job["id"])
    assert state["status"] == "done", state
    summary = state["summary"]
    assert summary["files"]["imported"] == 2 and summary["files"]["failed"] == 1
    assert summary["failures"] == [{"file": "notes.txt", "reason": "not a known card, lorebook or chat format"}]
    assert summary["targets"]["ccv3"]["written"] == 2

    items = client.get("/api/v1/catalog/items").json()["items"]
    card = next(i for i in items if i["kind"] == "card")
    assert card["name"] == "Captain Ilse Varga" and sorted(card["tags"]) == ["fantasy", "original", "steampunk"]
    assert [i["ref"] for i in client.get("/api/v1/catalog/items?kind=lorebook").json()["items"]] == [
        i["ref"] for i in items if i["kind"] == "lorebook"
    ]
    assert client.get("/api/v1/catalog/items?q=ilse").json()["items"][0]["ref"] == card["ref"]
    assert client.get("/api/v1/catalog/items?q=zzzz-nothing").json()["items"] == []
    searches: list[str] = []
    real_search = service_api.search_entries

    def counted(conn: Any, q: str, limit: int) -> Any:
        searches.append(q)
        return real_search(conn, q, limit)

    monkeypatch.setattr(service_api, "search_entries", counted)
    monkeypatch.setattr(catalog_queries, "search_entries", counted)
    assert client.get("/api/v1/catalog/items?q=ilse").json()["items"][0]["ref"] == card["ref"]
    assert searches == ["ilse"]  # one entry search per request serves the items and the entry hits
    assert client.get("/api/v1/catalog/items?platform=risu").json()["items"] == []

    info = client.get(f"/api/v1/catalog/items/{card['ref']}").json()
    assert {m["target"] for m in info["migrations"]} == {"ccv3", "risu-lorebook"}
    assert info["sources"][0]["path"] == "ilse_v3.json"  # a label, not where the server keeps it
    assert all("/" not in (m["output"] or "") for m in info["migrations"])

    exported = client.get(f"/api/v1/catalog/items/{card['ref']}/export?to=ccv3")
    assert exported.status_code == 200
    assert exported.headers["content-disposition"].startswith('attachment; filename="Captain_Ilse_Varga.ccv3.json"')
    assert json.loads(exported.content)["data"]["name"] == "Captain Ilse Varga"

    stats = client.get("/api/v1/catalog/stats").json()
    assert stats["cards"] == 1 and stats["migrations_by_target"]["ccv3"]["done"] == 2
    assert client.get("/api/v1/migrations").json()["jobs"][0]["id"] == job["id"]


def test_catalog_lookups_that_fail(client: TestClient) -> None:
    assert_error(client.get("/api/v1/catalog/items/card:99"), 404, "no card with id 99")
    assert_error(client.get("/api/v1/catalog/items/../../etc"), 404)
    assert_error(client.get("/api/v1/catalog/items/frog:1"), 400, "not an item reference")
    assert_error(client.get("/api/v1/catalog/items/card:1/export?to=nope"), 400, "unknown target format")
    assert_error(client.get("/api/v1/catalog/items?kind=dragon"), 422, "query.kind")
    assert_error(client.get("/api/v1/migrations/0123456789abcdef01234567"), 404, "no migration job")
    assert_error(client.get("/api/v1/migrations/..%2F..%2Fsecret"), 404)


def test_migrate_a_zip_bundle(client: TestClient) -> None:
    bundle = _charx(
        {"cards/ilse.json": ILSE.read_bytes(), "books/brass.json": (CARDS / "brasshaven.lorebook_v3.json").read_bytes()}
    )
    state = wait_job(client, migrate(client, [("cards.zip", bundle)], to="ccv3").json()["id"])
    assert state["summary"]["files"]["imported"] == 2


@pytest.mark.parametrize(
    ("members", "status", "fragment"),
    [
        ({"a.json": b"\0" * (20 * 1024 * 1024)}, 413, "compression ratio"),
        ({"../../etc/cron.d/x": b"x"}, 400, "zip-slip"),
    ],
    ids=["bomb", "slip"],
)
def test_migrate_refuses_unsafe_zips(client: TestClient, members: dict[str, bytes], status: int, fragment: str) -> None:
    assert_error(migrate(client, [("evil.zip", _charx(members))]), status, "evil.zip", fragment)
    assert client.get("/api/v1/migrations").json() == {"jobs": []}


def test_migrate_needs_targets_and_files(client: TestClient) -> None:
    assert_error(migrate(client, [("a.json", ILSE.read_bytes())], to="nope"), 400, "unknown target format")
    assert_error(migrate(client, [("a.json", ILSE.read_bytes())], to=" , "), 400, "no target format")
    assert_error(client.post("/api/v1/migrations", data={"to": "ccv3"}), 422, "body.files")


def test_token_guards_catalog_writes(make_client: Any) -> None:
    client = make_client(token="s3cret")
    files = [("a.json", ILSE.read_bytes())]
    assert_error(migrate(client, files), 401, "requires a token")
    assert_error(migrate(client, files, headers={"Authorization": "Bearer wrong"}), 401)
    assert migrate(client, files, headers={"Authorization": "Bearer s3cret"}).status_code == 202
    assert migrate(client, files, headers={"X-Interop-Token": "s3cret"}).status_code == 202
    # Reading never needs it.
    assert client.get("/api/v1/catalog/items").status_code == 200
    assert client.post("/api/v1/inspect", files=upload(ILSE)).status_code == 200


# --- headers, pages ---------------------------------------------------------------------------------


def test_security_headers_and_no_cors(client: TestClient) -> None:
    for response in (
        client.get("/"),
        client.get("/api/v1/formats"),
        client.post("/api/v1/inspect", files={"file": ("x", b"")}),
    ):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "default-src 'self'" in response.headers["content-security-policy"]
    page = client.get("/")
    assert "script-src 'self';" in page.headers["content-security-policy"]  # no inline scripts allowed
    preflight = client.options(
        "/api/v1/inspect", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
    )
    assert "access-control-allow-origin" not in preflight.headers
    simple = client.get("/api/v1/formats", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in simple.headers


@pytest.mark.parametrize("path", ["/", "/catalog", "/catalog/card:1", "/playground"])
def test_pages_render(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<script src="/static/app.js" defer></script>' in response.text  # relative: right behind any proxy
    assert "<script>" not in response.text


def test_playground_names_apps_as_people_know_them(client: TestClient) -> None:
    # Issue 21: choose by app, not by format or profile id (the checkbox value stays the id the API takes).
    page = client.get("/playground").text
    for app_id, label in (("sillytavern", "SillyTavern"), ("risu", "RisuAI"), ("agnai", "Agnai")):
        assert f'value="{app_id}" checked> {label}</label>' in page


def test_openapi_lists_every_endpoint(client: TestClient) -> None:
    paths = set(client.get("/openapi.json").json()["paths"])
    assert paths == {
        "/api/v1/formats",
        "/api/v1/inspect",
        "/api/v1/convert",
        "/api/v1/roundtrip",
        "/api/v1/diff",
        "/api/v1/validate",
        "/api/v1/activate",
        "/api/v1/catalog/items",
        "/api/v1/catalog/items/{ref}",
        "/api/v1/catalog/items/{ref}/export",
        "/api/v1/catalog/items/{ref}/picture",
        "/api/v1/catalog/stats",
        "/api/v1/migrations",
        "/api/v1/migrations/{job_id}",
    }
    assert client.get("/docs").status_code == 200


def test_unknown_route_is_json_404(client: TestClient) -> None:
    assert_error(client.get("/api/v1/nothing"), 404, "Not Found")
    assert_error(client.get("/catalog/frog:1"), 400, "not an item reference")


def test_shared_corpus_never_500(client: TestClient, shared_corpus: Path) -> None:
    """Every real file to a card and a lorebook target: success or a 4xx with a reason, never a 500."""
    for path in REAL:
        for target in ("ccv3", "sillytavern-world"):
            response = client.post(f"/api/v1/convert?to={target}", files=upload(path))
            assert response.status_code in (200, 422), (path.name, target, response.text)


def test_a_job_whose_server_stopped_reads_as_interrupted(client: TestClient, tmp_path: Path) -> None:
    job = wait_job(client, migrate(client, [("a.json", ILSE.read_bytes())], to="ccv3").json()["id"])
    state_file = next((tmp_path / "catalog.sqlite.data" / "service" / "jobs").glob("*.json"))
    stale = {**job, "status": "running", "pid": 2**22 + 12345}  # above Linux's pid_max: no such process
    state_file.write_text(json.dumps(stale))
    again = client.get(f"/api/v1/migrations/{job['id']}").json()
    assert again["status"] == "failed" and again["error"].startswith("interrupted")


def test_unreachable_catalog_is_503_and_conversions_still_work(make_client: Any) -> None:
    client = make_client(db="postgresql+psycopg://127.0.0.1:1/nothing?connect_timeout=2")
    error = assert_error(client.get("/api/v1/catalog/stats"), 503, "cannot open the catalog")
    assert "127.0.0.1:1" in (error["file"] or "")
    assert client.post("/api/v1/convert?to=ccv2", files=upload(ILSE)).status_code == 200
