"""The web page end to end in a real Chromium (Playwright driving Debian's chromium).

Each test saves a screenshot of the page it drove under its tmp dir
(``pytest --basetemp=DIR -m browser`` keeps them somewhere you can look).
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop.cli import cli

from ..conftest import PROJECT_CORPUS, SHARED_CORPUS
from ..node_peers import ensure_package
from .conftest import ensure_chromium

AXE_CORE = "axe-core@4.10.3"
"""Deque's accessibility engine, from npm at test time like the other Node peers (tests/node_peers.py)."""

pytestmark = pytest.mark.browser

SERAPHINA = SHARED_CORPUS / "cards-png" / "st_default_Seraphina.png"
MIREI = PROJECT_CORPUS / "png" / "v3_both_st_order.png"  # ours: a CJK name, both ccv3 and chara chunks
WORLD = SHARED_CORPUS / "st-worldinfo" / "st_Eldoria.json"
CHATS = PROJECT_CORPUS / "chats"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    path = ensure_chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the Python package)")
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
        browser = playwright.chromium.launch(executable_path=str(path), args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def js_errors() -> list[str]:
    return []


@pytest.fixture(scope="module")
def axe_script() -> Path:
    try:
        prefix = ensure_package(AXE_CORE)
    except RuntimeError as exc:  # offline: say so plainly rather than pass without checking
        pytest.skip(f"axe-core could not be installed from npm ({exc}); accessibility checks need it")
    return prefix / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page: object, axe: Path) -> list[str]:
    """axe-core's WCAG 2 A/AA violations on the page as it is now, one line each."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):  # type: ignore[attr-defined]
        page.add_script_tag(path=str(axe))  # type: ignore[attr-defined]
    result = page.evaluate(  # type: ignore[attr-defined]
        """() => axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa',
                                       'best-practice']}, resultTypes: ['violations']})"""
    )
    return [f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}" for v in result["violations"]]


def overflow(page: object) -> list[str]:
    """Elements sticking out past the right edge of the viewport (a horizontal scrollbar at 375 px)."""
    return page.evaluate(  # type: ignore[attr-defined]
        """() => {
            const width = document.documentElement.clientWidth;
            const out = [];
            const scroll = document.documentElement.scrollWidth;
            if (scroll > width) out.push('document ' + scroll);
            for (const node of document.querySelectorAll('body *')) {
                const box = node.getBoundingClientRect();
                if (box.width && box.right > width + 1 && !node.closest('.table-wrap')) {
                    const name = node.tagName.toLowerCase() + (node.id ? '#' + node.id : '');
                    out.push(name + '.' + node.className + ' ' + box.right);
                }
            }
            return out.slice(0, 10);
        }"""
    )


@pytest.fixture
def page(browser: object, js_errors: list[str]) -> Iterator[object]:
    # bypass_csp: so the test can inject axe-core; the page's own scripts are all 'self' anyway.
    context = browser.new_context(  # type: ignore[attr-defined]
        accept_downloads=True, viewport={"width": 1280, "height": 900}, bypass_csp=True
    )
    page = context.new_page()
    errors = js_errors
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def need(*paths: Path) -> None:
    for path in paths:
        if not path.exists():
            pytest.skip(f"{path} not found (is ../shared beside the repo?)")


def drop_file(page: object, selector: str, path: Path) -> None:
    """A real drop event carrying the file, as a user dragging it from their desktop makes."""
    data = base64.b64encode(path.read_bytes()).decode()
    handle = page.evaluate_handle(  # type: ignore[attr-defined]
        """([data, name]) => {
            const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], name, { type: "image/png" }));
            return transfer;
        }""",
        [data, path.name],
    )
    page.dispatch_event(selector, "drop", {"dataTransfer": handle})  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("source", "name", "entries"),
    [(SERAPHINA, "Seraphina", 4), (MIREI, "Mirei Hoshino 星野美玲", 3)],
    ids=["shared-corpus-seraphina", "project-corpus-mirei"],
)
def test_drop_convert_download_equals_cli(
    page: object, server: str, tmp_path: Path, source: Path, name: str, entries: int
) -> None:
    need(source)
    page.goto(server + "/")  # type: ignore[attr-defined]
    drop_file(page, "#drop", source)
    card = page.locator("article.doc").first  # type: ignore[attr-defined]
    card.locator(".meta", has_text="lorebook entries").wait_for()  # the name shows the file name until then
    assert card.locator(".name").inner_text() == name
    meta = card.locator(".meta").inner_text()
    assert "png" in meta and f"{entries} lorebook entries" in meta
    assert card.locator("img.picture").is_visible()
    page.select_option("#app", "")  # type: ignore[attr-defined]  # "a specific format…"
    page.select_option("#target", "risu-lorebook")  # type: ignore[attr-defined]
    card.locator("button.convert").click()
    card.locator(".report table tbody tr").first.wait_for(state="attached")
    title = card.locator(".report-title").inner_text()
    assert title.startswith("png → risu-lorebook (risu)")

    # The filter: lost rows shown by default, hidden once "lost" is unticked; kept rows hidden by default.
    lost_rows = card.locator("tbody tr[data-fate=lost]")
    assert lost_rows.count() > 0 and lost_rows.first.is_visible()
    assert not card.locator("tbody tr[data-fate=kept]").first.is_visible()
    page.screenshot(path=str(tmp_path / "convert.png"), full_page=True)  # type: ignore[attr-defined]
    card.locator(".fate-filter input[value=lost]").uncheck()
    assert not lost_rows.first.is_visible()
    # Each loss names what the target app does.
    card.locator(".fate-filter input[value=lost]").check()
    assert lost_rows.first.locator("td").nth(2).inner_text().strip()

    with page.expect_download() as info:  # type: ignore[attr-defined]
        card.locator("a.download").click()
    download = info.value
    assert download.suggested_filename == f"{source.stem}.risu-lorebook.json"
    got = tmp_path / "download.json"
    download.save_as(str(got))

    expected = tmp_path / "cli.json"
    result = CliRunner().invoke(cli, ["convert", str(source), "--to", "risu-lorebook", "-o", str(expected), "-q"])
    assert result.exit_code == 0, result.output
    assert got.read_bytes() == expected.read_bytes()


def test_bad_file_shows_one_line_reason(page: object, server: str, tmp_path: Path, js_errors: list[str]) -> None:
    bad = tmp_path / "broken.json"
    bad.write_bytes(b'{"spec": "chara_card_v3", "data": "nope"}')
    page.goto(server + "/")  # type: ignore[attr-defined]
    page.set_input_files("#files", str(bad))  # type: ignore[attr-defined]
    error = page.locator("article.doc .error")  # type: ignore[attr-defined]
    error.wait_for()
    assert error.inner_text().startswith("broken.json")
    assert page.locator("article.doc button.convert").is_disabled()  # type: ignore[attr-defined]
    page.screenshot(path=str(tmp_path / "convert-error.png"), full_page=True)  # type: ignore[attr-defined]
    # Chromium logs the API's 400 answer on the console: expected here, and the only message.
    assert js_errors == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    js_errors.clear()


def test_catalog_upload_search_and_history(page: object, server: str, tmp_path: Path) -> None:
    need(SERAPHINA, WORLD)
    page.goto(server + "/catalog")  # type: ignore[attr-defined]
    page.set_input_files("#migrate-files", [str(SERAPHINA), str(WORLD)])  # type: ignore[attr-defined]
    page.fill("#migrate-to", "ccv3,risu-lorebook")  # type: ignore[attr-defined]
    page.click("#migrate button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#job-text", has_text="done: 2 of 2 files").wait_for(timeout=60_000)  # type: ignore[attr-defined]
    assert "2 imported" in page.inner_text("#job-text")  # type: ignore[attr-defined]
    page.locator("#jobs tbody tr.status-done").first.wait_for()  # type: ignore[attr-defined]

    page.fill("#q", "seraphina")  # type: ignore[attr-defined]
    page.click("#search button[type=submit]")  # type: ignore[attr-defined]
    page.locator('#items[data-query="seraphina"]').wait_for()  # type: ignore[attr-defined]
    rows = page.locator("#items tbody tr")  # type: ignore[attr-defined]
    found = {tuple(rows.nth(i).locator("td").all_inner_texts()[1:3]) for i in range(rows.count())}
    assert ("card:1", "Seraphina") in found
    assert all("seraphina" in " ".join(r).lower() or r[0].startswith("book:") for r in found), found
    # Full-text search over entries: a word from the Eldoria world's content.
    world = json.loads(WORLD.read_text())
    word = next(w for e in world["entries"].values() for w in e["content"].split() if w.isalpha() and len(w) > 6)
    page.fill("#q", word)  # type: ignore[attr-defined]
    page.click("#search button[type=submit]")  # type: ignore[attr-defined]
    page.locator(f'#items[data-query="{word}"]').wait_for()  # type: ignore[attr-defined]
    hits = page.locator("#entry-hits li")  # type: ignore[attr-defined]
    assert hits.count() > 0 and word.lower() in hits.first.inner_text().lower()
    page.screenshot(path=str(tmp_path / "catalog.png"), full_page=True)  # type: ignore[attr-defined]

    page.fill("#q", "seraphina")  # type: ignore[attr-defined]
    page.click("#search button[type=submit]")  # type: ignore[attr-defined]
    page.locator('#items[data-query="seraphina"]').wait_for()  # type: ignore[attr-defined]
    rows.filter(has_text="Seraphina").first.locator("a").click()
    history = page.locator("#history tbody tr")  # type: ignore[attr-defined]
    history.first.wait_for()
    targets = {history.nth(i).locator("td").first.inner_text() for i in range(history.count())}
    assert targets == {"ccv3", "risu-lorebook"}
    assert page.inner_text("#item-name") == "Seraphina"  # type: ignore[attr-defined]
    page.screenshot(path=str(tmp_path / "item.png"), full_page=True)  # type: ignore[attr-defined]
    with page.expect_download() as info:  # type: ignore[attr-defined]
        page.select_option("#export-to", "ccv2")  # type: ignore[attr-defined]
        page.click("#export")  # type: ignore[attr-defined]
    assert info.value.suggested_filename == "Seraphina.ccv2.json"


def test_playground_side_by_side(page: object, server: str, tmp_path: Path) -> None:
    page.goto(server + "/playground")  # type: ignore[attr-defined]
    page.set_input_files("#book", str(CHATS / "ccv3_harbor.json"))  # type: ignore[attr-defined]
    chat = "\n".join(
        json.dumps({k: v for k, v in json.loads(line).items()})
        for line in (CHATS / "harbor.jsonl").read_text().splitlines()
        if line.strip()
    )
    page.fill("#chat", chat)  # type: ignore[attr-defined]
    page.click("#activate button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#side tbody tr").first.wait_for()  # type: ignore[attr-defined]
    headers = page.locator("#side thead th").all_inner_texts()  # type: ignore[attr-defined]
    assert headers == ["entry", "sillytavern", "risu", "agnai"]
    differing = page.locator("#side tbody tr.differs")  # type: ignore[attr-defined]
    assert differing.count() > 0
    # The regex key /where can i find \w+/i: SillyTavern matches it as a regex, the others do not.
    row = page.locator("#side tbody tr", has_text="where can i find").first  # type: ignore[attr-defined]
    cells = row.locator("td").all_inner_texts()
    assert cells[1].startswith("fires") and cells[2].startswith("does not fire")
    page.screenshot(path=str(tmp_path / "playground.png"), full_page=True)  # type: ignore[attr-defined]
    page.check("#only-diff")  # type: ignore[attr-defined]
    visible = page.locator("#side tbody tr:visible").count()  # type: ignore[attr-defined]
    assert visible == differing.count()

    # A pasted plain-text chat works too.
    page.uncheck("#only-diff")  # type: ignore[attr-defined]
    page.fill("#chat", "User: Where can I find Roderick?\nMira: At the docks.")  # type: ignore[attr-defined]
    page.click("#activate button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#play-title", has_text="over 2 messages").wait_for()  # type: ignore[attr-defined]


# --- issue 21: the page organised around apps ------------------------------------------------------------

OLD_TOM = PROJECT_CORPUS / "cards" / "old_tom_v1.json"  # a card without a lorebook
ILSE = PROJECT_CORPUS / "cards" / "ilse_v3.json"  # a card with one
BRASSHAVEN = PROJECT_CORPUS / "cards" / "brasshaven.lorebook_v3.json"


def test_choose_by_app_convert_all_and_download_one_zip(page: object, server: str, tmp_path: Path) -> None:
    """SillyTavern picked once: the card becomes its JSON card, the book its world file; one zip holds both,
    byte for byte what the CLI writes; a card without a book cannot go to NovelAI and says so."""
    import zipfile

    page.goto(server + "/")  # type: ignore[attr-defined]
    page.set_input_files("#files", [str(OLD_TOM), str(BRASSHAVEN)])  # type: ignore[attr-defined]
    docs = page.locator("article.doc")  # type: ignore[attr-defined]
    docs.nth(1).locator(".target-line", has_text="sillytavern").wait_for()
    docs.nth(0).locator(".target-line", has_text="sillytavern").wait_for()
    lines = sorted(docs.locator(".target-line").all_inner_texts())
    assert lines == ["for SillyTavern: sillytavern-card", "for SillyTavern: sillytavern-world"]
    page.select_option("#app", "novelai")  # type: ignore[attr-defined]
    tom = docs.filter(has=page.locator(".meta", has_text="0 lorebook entries"))  # type: ignore[attr-defined]
    book = docs.filter(has=page.locator(".meta", has_text="lorebook_v3"))  # type: ignore[attr-defined]
    assert tom.locator(".target-line").inner_text() == "NovelAI cannot take this card (it has no lorebook)"
    assert tom.locator("button.convert").is_disabled()
    assert book.locator(".target-line").inner_text() == "for NovelAI: novelai-lorebook"
    page.select_option("#app", "sillytavern")  # type: ignore[attr-defined]
    page.click("#convert-all")  # type: ignore[attr-defined]
    page.locator("#all-status", has_text="2 converted").wait_for()  # type: ignore[attr-defined]
    with page.expect_download() as info:  # type: ignore[attr-defined]
        page.click("#download-all")  # type: ignore[attr-defined]
    got = tmp_path / "all.zip"
    info.value.save_as(str(got))
    with zipfile.ZipFile(got) as archive:
        assert archive.testzip() is None  # every member's CRC checks out
        members = {name: archive.read(name) for name in archive.namelist()}
    for source, target in ((OLD_TOM, "sillytavern-card"), (BRASSHAVEN, "sillytavern-world")):
        expected = tmp_path / f"{source.stem}.cli"
        result = CliRunner().invoke(cli, ["convert", str(source), "--to", target, "-o", str(expected), "-q"])
        assert result.exit_code == 0, result.output
        name = next(n for n in members if n.startswith(source.stem.split(".")[0]))
        assert members[name] == expected.read_bytes(), name
    assert len(members) == 2


def test_shows_what_is_in_the_file(page: object, server: str) -> None:
    from interop import read

    doc = read(ILSE)
    page.goto(server + "/")  # type: ignore[attr-defined]
    page.set_input_files("#files", str(ILSE))  # type: ignore[attr-defined]
    card = page.locator("article.doc").first  # type: ignore[attr-defined]
    card.locator(".target-line").wait_for()
    card.locator(".content summary").click()
    assert card.locator(".description").inner_text().strip() == doc.card.data.description.strip()
    assert card.locator(".first-mes").inner_text().strip() == doc.card.data.first_mes.strip()
    rows = card.locator(".entries tbody tr")
    assert rows.count() == len(doc.book.entries)
    for i, entry in enumerate(doc.book.entries):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[3].strip() == (entry.content or "").strip()
        assert all(k in cells[2] for k in entry.keys)
        assert int(cells[4]) > 0
    total = sum(int(rows.nth(i).locator("td").nth(4).inner_text()) for i in range(rows.count()))
    assert f"{len(doc.book.entries)} entries, {total} tokens" in card.locator(".book-title").inner_text()


def test_picture_upload_makes_the_png(page: object, server: str, tmp_path: Path) -> None:
    need(SERAPHINA)
    page.goto(server + "/")  # type: ignore[attr-defined]
    page.set_input_files("#picture", str(SERAPHINA))  # type: ignore[attr-defined]
    page.set_input_files("#files", str(OLD_TOM))  # type: ignore[attr-defined]
    page.select_option("#app", "")  # type: ignore[attr-defined]
    page.select_option("#target", "png")  # type: ignore[attr-defined]
    card = page.locator("article.doc").first  # type: ignore[attr-defined]
    card.locator(".target-line", has_text="as png").wait_for()
    card.locator("button.convert").click()
    with page.expect_download() as info:  # type: ignore[attr-defined]
        card.locator("a.download").click()
    got = tmp_path / "tom.png"
    info.value.save_as(str(got))
    picture = SERAPHINA.read_bytes()
    idat = picture[picture.index(b"IDAT") - 4 :][:64]
    assert got.read_bytes().startswith(b"\x89PNG") and idat in got.read_bytes()


# --- every page: 375 px, labels (axe-core), screenshots ----------------------------------------------------

SCREENSHOTS = os.environ.get("INTEROP_SCREENSHOTS")
"""A folder to keep the screenshots of test_every_page in (docs/service.md describes them)."""


def _fill_convert(page: object) -> None:
    page.set_input_files("#files", [str(ILSE), str(OLD_TOM)])  # type: ignore[attr-defined]
    page.locator("article.doc .target-line").nth(1).wait_for()  # type: ignore[attr-defined]
    page.click("#convert-all")  # type: ignore[attr-defined]
    page.locator("#all-status", has_text="converted").wait_for()  # type: ignore[attr-defined]
    page.locator("article.doc .content summary").first.click()  # type: ignore[attr-defined]


def _fill_catalog(page: object) -> None:
    page.locator("#items tbody tr td a").first.wait_for()  # type: ignore[attr-defined]
    page.locator("#jobs tbody tr.status-done").first.wait_for()  # type: ignore[attr-defined]


def _fill_item(page: object) -> None:
    page.locator("#history tbody tr").first.wait_for()  # type: ignore[attr-defined]


def _fill_validate(page: object) -> None:
    page.set_input_files("#validate-file", str(OLD_TOM))  # type: ignore[attr-defined]
    page.check("#validate-strict")  # type: ignore[attr-defined]
    page.click("#validate button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#validate-title").wait_for()  # type: ignore[attr-defined]


def _fill_diff(page: object) -> None:
    page.set_input_files("#diff-a", str(ILSE))  # type: ignore[attr-defined]
    page.set_input_files("#diff-b", str(PROJECT_CORPUS / "cards" / "ilse_v3_1_newer.json"))  # type: ignore[attr-defined]
    page.click("#diff button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#differences tbody tr").first.wait_for()  # type: ignore[attr-defined]


def _fill_playground(page: object) -> None:
    page.set_input_files("#book", str(CHATS / "ccv3_harbor.json"))  # type: ignore[attr-defined]
    page.fill("#chat", "User: Where can I find Roderick?\nMira: At the docks, by the tide clock.")  # type: ignore[attr-defined]
    page.click("#activate button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#side tbody tr").first.wait_for()  # type: ignore[attr-defined]


PAGES = {
    "convert": ("/", _fill_convert),
    "catalog": ("/catalog", _fill_catalog),
    "item-card": ("/catalog/card:1", _fill_item),
    "item-book": ("/catalog/book:1", _fill_item),
    "validate": ("/validate", _fill_validate),
    "diff": ("/diff", _fill_diff),
    "playground": ("/playground", _fill_playground),
}


@pytest.fixture(scope="module")
def catalogued(server: str) -> str:
    """The module's server with Seraphina (a card with its book) in the catalog, as a web migration."""
    need(SERAPHINA)
    import urllib.request

    boundary = "XyZ"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{SERAPHINA.name}"\r\n\r\n'.encode()
        + SERAPHINA.read_bytes()
        + f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\nccv3\r\n--{boundary}--\r\n'.encode()
    )
    request = urllib.request.Request(
        server + "/api/v1/migrations", data=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        job = json.load(response)
    for _ in range(300):
        with urllib.request.urlopen(server + "/api/v1/migrations/" + job["id"], timeout=10) as response:
            if json.load(response)["status"] in ("done", "failed"):
                break
        time.sleep(0.1)
    return server


@pytest.mark.parametrize("width", [1280, 375], ids=["desktop", "375px"])
@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_fits_and_is_labelled(
    browser: object, catalogued: str, axe_script: Path, tmp_path: Path, name: str, width: int
) -> None:
    """Each page, filled with real results: nothing wider than the screen, 0 axe-core violations."""
    need(ILSE, OLD_TOM, CHATS / "ccv3_harbor.json")
    context = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)  # type: ignore[attr-defined]
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        path, fill = PAGES[name]
        page.goto(catalogued + path)
        fill(page)
        page.wait_for_load_state("networkidle")
        folder = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
        sticking_out = overflow(page)
        assert sticking_out == [], f"{name} at {width} px sticks out: {sticking_out}"
        assert axe_violations(page, axe_script) == []
        assert errors == []
    finally:
        context.close()


# --- issue 21: catalog, item, validate, diff, playground behaviours ------------------------------------------


def test_catalog_again_says_already_in_the_catalog(page: object, catalogued: str) -> None:
    page.goto(catalogued + "/catalog")  # type: ignore[attr-defined]
    page.set_input_files("#migrate-files", str(SERAPHINA))  # type: ignore[attr-defined]
    page.fill("#migrate-to", "ccv3")  # type: ignore[attr-defined]
    page.click("#migrate button[type=submit]")  # type: ignore[attr-defined]
    text = page.locator("#job-text", has_text="done: 1 of 1 files")  # type: ignore[attr-defined]
    text.wait_for(timeout=60_000)
    assert text.inner_text() == "done: 1 of 1 files, already in the catalog"
    # The jobs table is redrawn by its own poll after the job text: wait until its summary arrived.
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => { const c = document.querySelector('#jobs tbody tr td:nth-child(6)');"
        " return c && c.textContent !== '\u2013'; }",
        timeout=60_000,
    )
    first = page.locator("#jobs tbody tr").first.locator("td").all_inner_texts()  # type: ignore[attr-defined]
    assert first[4:7] == ["0", "1", "0"]  # imported, already in the catalog, failed


def test_catalog_list_thumbnails_sorting_and_count(page: object, catalogued: str) -> None:
    page.goto(catalogued + "/catalog")  # type: ignore[attr-defined]
    rows = page.locator("#items tbody tr")  # type: ignore[attr-defined]
    rows.first.locator("td a").wait_for()
    refs = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(rows.count())]
    assert refs == sorted(refs, key=lambda r: (r.startswith("book"), int(r.split(":")[1])))
    showing = page.inner_text("#showing")  # type: ignore[attr-defined]
    assert showing.startswith(f"showing 1–{len(refs)}")
    from interop.catalog import queries

    if hasattr(queries, "count_items"):
        assert showing.endswith(f"of {len(refs)} items") or showing.endswith("of 1 item")
    # The card's thumbnail is its picture (a PNG), the book's a placeholder.
    card_img = rows.filter(has_text="card:1").locator("img.thumb")
    card_img.wait_for()
    # a lazy image attached to the page may still be loading: wait for it (times out, and fails, if it never loads)
    assert page.wait_for_function(  # type: ignore[attr-defined]
        "(img) => img.complete && img.naturalWidth > 0", arg=card_img.element_handle(), timeout=10_000
    )
    # Sorting by entries (descending on the second click), by name.
    page.click("#items th[data-key=name] button")  # type: ignore[attr-defined]
    names = [rows.nth(i).locator("td").nth(2).inner_text() for i in range(rows.count())]
    assert names == sorted(names, key=str.lower) or names == sorted(names)
    assert page.get_attribute("#items th[data-key=name]", "aria-sort") == "ascending"  # type: ignore[attr-defined]
    page.click("#items th[data-key=name] button")  # type: ignore[attr-defined]
    assert [rows.nth(i).locator("td").nth(2).inner_text() for i in range(rows.count())] == names[::-1]
    assert page.get_attribute("#items th[data-key=name]", "aria-sort") == "descending"  # type: ignore[attr-defined]


def test_item_links_card_and_book_and_downloads_outputs(page: object, catalogued: str, tmp_path: Path) -> None:
    page.goto(catalogued + "/catalog/card:1")  # type: ignore[attr-defined]
    page.locator("#history tbody tr").first.wait_for()  # type: ignore[attr-defined]
    book = page.locator("#item-links a")  # type: ignore[attr-defined]
    assert "Eldoria" in book.inner_text()
    href = book.get_attribute("href")
    book.click()
    page.wait_for_url("**" + href)  # type: ignore[attr-defined]
    back = page.locator("#item-links a", has_text="Seraphina")  # type: ignore[attr-defined]
    back.wait_for()
    assert back.get_attribute("href").endswith("/catalog/card:1")
    page.goto(catalogued + "/catalog/card:1")  # type: ignore[attr-defined]
    link = page.locator("#history a.download-output").first  # type: ignore[attr-defined]
    link.wait_for()
    with page.expect_download() as info:  # type: ignore[attr-defined]
        link.click()
    got = tmp_path / "out.json"
    info.value.save_as(str(got))
    card = json.loads(got.read_text())
    assert card["spec"] == "chara_card_v3" and card["data"]["name"] == "Seraphina"


def test_validate_page(page: object, server: str, tmp_path: Path, js_errors: list[str]) -> None:
    page.goto(server + "/validate")  # type: ignore[attr-defined]
    page.set_input_files("#validate-file", str(OLD_TOM))  # type: ignore[attr-defined]
    page.click("#validate button[type=submit]")  # type: ignore[attr-defined]
    title = page.locator("#validate-title")  # type: ignore[attr-defined]
    title.wait_for()
    result = CliRunner().invoke(cli, ["validate", str(OLD_TOM)])
    rows = page.locator("#problems tbody tr")  # type: ignore[attr-defined]
    assert rows.count() >= 1
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert f"{cells[1]}: {cells[2]}" in result.output  # the CLI says the same
    # A bad file: the reason, and no stale answer left from the run before.
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    page.set_input_files("#validate-file", str(bad))  # type: ignore[attr-defined]
    page.click("#validate button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#validate-error").wait_for()  # type: ignore[attr-defined]
    assert page.inner_text("#validate-error").startswith("bad.json")  # type: ignore[attr-defined]
    assert not title.is_visible() and not page.locator("#problems").is_visible()  # type: ignore[attr-defined]
    assert js_errors == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    js_errors.clear()


def test_diff_page(page: object, server: str, tmp_path: Path) -> None:
    newer = PROJECT_CORPUS / "cards" / "ilse_v3_1_newer.json"
    page.goto(server + "/diff")  # type: ignore[attr-defined]
    page.set_input_files("#diff-a", str(ILSE))  # type: ignore[attr-defined]
    page.set_input_files("#diff-b", str(newer))  # type: ignore[attr-defined]
    page.click("#diff button[type=submit]")  # type: ignore[attr-defined]
    rows = page.locator("#differences tbody tr")  # type: ignore[attr-defined]
    rows.first.wait_for()
    paths = {rows.nth(i).locator("td").first.inner_text() for i in range(rows.count())}
    assert "card.name" in paths
    assert "3 differences" in page.inner_text("#diff-title")  # type: ignore[attr-defined]
    # Two books: a changed entry is named with its change, a dropped one as only in the first.
    book = json.loads(BRASSHAVEN.read_text())
    book["data"]["entries"][0]["content"] = "changed"
    dropped = book["data"]["entries"].pop(1)
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(book))
    page.set_input_files("#diff-a", str(BRASSHAVEN))  # type: ignore[attr-defined]
    page.set_input_files("#diff-b", str(changed))  # type: ignore[attr-defined]
    page.click("#diff button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#differences tbody tr", has_text="only in the first").wait_for()  # type: ignore[attr-defined]
    texts = [rows.nth(i).inner_text() for i in range(rows.count())]
    assert any("content" in t and "changed" in t and book["data"]["entries"][0]["comment"] in t for t in texts), texts
    assert any(dropped["comment"] in t and "only in the first" in t for t in texts), texts
    page.set_input_files("#diff-a", str(ILSE))  # type: ignore[attr-defined]
    page.set_input_files("#diff-b", str(ILSE))  # type: ignore[attr-defined]
    page.click("#diff button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#diff-title", has_text="identical").wait_for()  # type: ignore[attr-defined]
    assert not page.locator("#differences").is_visible()  # type: ignore[attr-defined]


def test_playground_settings_preview_plain_words_and_errors(
    page: object, server: str, tmp_path: Path, js_errors: list[str]
) -> None:
    page.goto(server + "/playground")  # type: ignore[attr-defined]
    page.set_input_files("#book", str(CHATS / "ccv3_harbor.json"))  # type: ignore[attr-defined]
    # A chat file opened from disk fills the box (as a dropped one does).
    chat = tmp_path / "chat.txt"
    chat.write_text("User: Where can I find Roderick?\nMira: At the docks, by the harbor.\n")
    page.set_input_files("#chat-file", str(chat))  # type: ignore[attr-defined]
    page.wait_for_function("document.getElementById('chat').value.includes('Roderick')")  # type: ignore[attr-defined]
    page.click("#activate button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#side tbody tr").first.wait_for()  # type: ignore[attr-defined]
    text = page.inner_text("#side tbody")  # type: ignore[attr-defined]
    assert "0 = newest" not in text
    assert "in the newest message" in text or "before the newest" in text
    # The injected text preview: what each app puts in the prompt, as the API returns it.
    answer = page.evaluate(  # type: ignore[attr-defined]
        """async () => {
            const data = new FormData();
            data.append('book', document.getElementById('book').files[0]);
            data.append('chat_text', document.getElementById('chat').value);
            data.append('platform', 'sillytavern');
            return (await fetch('/api/v1/activate', {method: 'POST', body: data})).json();
        }"""
    )
    injected = [a["content"] for a in answer["results"]["sillytavern"]["activated"]]
    assert injected
    preview = page.locator("#injected details[data-platform=sillytavern]")  # type: ignore[attr-defined]
    preview.locator("summary").click()
    assert preview.locator("pre").inner_text().strip() == "\n".join(injected).strip()
    assert preview.locator("summary").inner_text().startswith(f"sillytavern: {len(injected)} entr")
    # The regex key /where can i find \w+/i matched two messages back; at scan depth 1 only the newest
    # message ("And the tide clock?") is read, so SillyTavern no longer fires that entry.
    from playwright.sync_api import expect

    row = page.locator("#side tbody tr", has_text="where can i find").first  # type: ignore[attr-defined]
    assert row.locator("td").nth(1).inner_text().startswith("fires")
    entry_id = row.locator(".entry-id").inner_text()
    page.fill("#scan-depth", "1")  # type: ignore[attr-defined]
    page.click("#activate button[type=submit]")  # type: ignore[attr-defined]
    same = page.locator("#side tbody tr", has=page.locator(".entry-id", has_text=entry_id))  # type: ignore[attr-defined]
    expect(same.locator("td").nth(1)).to_contain_text("does not fire")
    # A bad run: the error, and no stale side-by-side from the run before.
    page.fill("#chat", "")  # type: ignore[attr-defined]
    page.evaluate("document.getElementById('chat').removeAttribute('required')")  # type: ignore[attr-defined]
    page.click("#activate button[type=submit]")  # type: ignore[attr-defined]
    page.locator("#play-error").wait_for()  # type: ignore[attr-defined]
    assert not page.locator("#play-result").is_visible()  # type: ignore[attr-defined]
    assert js_errors == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    js_errors.clear()


def test_docs_work_offline(browser: object, server: str, tmp_path: Path) -> None:
    """/docs renders every endpoint with every request to another host refused (no CDN)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    elsewhere: list[str] = []

    def only_here(route: object) -> None:
        url = route.request.url  # type: ignore[attr-defined]
        if url.startswith(server):
            route.continue_()  # type: ignore[attr-defined]
        else:
            elsewhere.append(url)
            route.abort()  # type: ignore[attr-defined]

    try:
        page.route("**/*", only_here)
        page.goto(server + "/docs")
        operations = page.locator(".opblock")
        operations.first.wait_for(timeout=30_000)
        spec = json.loads(page.evaluate("fetch('/openapi.json').then((r) => r.text())"))
        assert operations.count() == sum(len(methods) for methods in spec["paths"].values())
        assert elsewhere == []
        page.screenshot(path=str(tmp_path / "docs.png"))
    finally:
        page.close()


def test_playground_takes_a_dropped_chat_file(page: object, server: str) -> None:
    page.goto(server + "/playground")  # type: ignore[attr-defined]
    drop_file(page, "#chat", CHATS / "harbor.jsonl")
    page.wait_for_function("document.getElementById('chat').value.length > 0")  # type: ignore[attr-defined]
    assert page.input_value("#chat") == (CHATS / "harbor.jsonl").read_text()  # type: ignore[attr-defined]
    page.wait_for_function("document.getElementById('chat-source').textContent.includes('harbor.jsonl')")  # type: ignore[attr-defined]


def _run_and_capture(page: object) -> list[list[str | int]]:
    """Click Run; the form fields the page sent to /activate: ``[name, text]`` or ``[name, file name,
    size]`` (read in the page: the DevTools protocol leaves out a body that holds a file)."""
    page.evaluate(  # type: ignore[attr-defined]
        """() => {
            window.sentFields = null;
            if (window.fetchSeen) return;
            window.fetchSeen = true;
            const original = window.fetch;
            window.fetch = (url, init) => {
                if (String(url).endsWith("/activate") && init && init.body instanceof FormData) {
                    window.sentFields = [...init.body.entries()].map(([k, v]) =>
                        v instanceof File ? [k, v.name, v.size] : [k, v]);
                }
                return original(url, init);
            };
        }"""
    )
    page.click("#activate button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_function("window.sentFields !== null")  # type: ignore[attr-defined]
    return page.evaluate("window.sentFields")  # type: ignore[attr-defined]


def test_playground_sends_a_dropped_sillytavern_chat_as_a_file(page: object, server: str, tmp_path: Path) -> None:
    """A dropped chat goes to the API as the file (its bytes and name), not as the text the browser
    decoded: SillyTavern's own export (corpus/chats/st_export_harbor.jsonl) fires what the CLI fires."""
    export = CHATS / "st_export_harbor.jsonl"
    page.goto(server + "/playground")  # type: ignore[attr-defined]
    page.set_input_files("#book", str(CHATS / "st_matching.json"))  # type: ignore[attr-defined]
    drop_file(page, "#chat", export)
    page.wait_for_function("document.getElementById('chat').value.length > 0")  # type: ignore[attr-defined]
    page.uncheck("input[name=platform][value=risu]")  # type: ignore[attr-defined]
    page.uncheck("input[name=platform][value=agnai]")  # type: ignore[attr-defined]
    sent = {field[0]: field[1:] for field in _run_and_capture(page)}
    assert sent["chat"] == ["st_export_harbor.jsonl", export.stat().st_size] and "chat_text" not in sent
    title = page.locator("#play-title", has_text="(sillytavern-chat)")  # type: ignore[attr-defined]
    title.wait_for()
    run = CliRunner().invoke(cli, ["activate", str(CHATS / "st_matching.json"), "--chat", str(export), "--json"])
    fired = {a["entry_id"] for a in json.loads(run.output)["activated"]}
    shown = page.locator("#side tbody tr td.fired").count()  # type: ignore[attr-defined]
    assert shown == len(fired) > 0
    page.screenshot(path=str(tmp_path / "playground_st_export.png"), full_page=True)  # type: ignore[attr-defined]

    # Edited, the box's text is what is sent.
    page.fill("#chat", "User: Where can I find Roderick?\nMira: At the docks.")  # type: ignore[attr-defined]
    sent = {field[0]: field[1:] for field in _run_and_capture(page)}
    assert sent["chat_text"] == ["User: Where can I find Roderick?\nMira: At the docks."] and "chat" not in sent
    page.locator("#play-title", has_text="over 2 messages").wait_for()  # type: ignore[attr-defined]


def test_playground_names_the_line_of_a_mixed_encoding_chat(
    page: object, server: str, tmp_path: Path, js_errors: list[str]
) -> None:
    """Sent as a file, a chat with a line in another encoding is refused naming the line (decoded by
    the browser, the bad bytes would silently have become U+FFFD)."""
    lines = (CHATS / "st_export_harbor.jsonl").read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"passage", "pass\u00e1ge".encode("latin-1"))
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(b"\n".join(lines))
    page.goto(server + "/playground")  # type: ignore[attr-defined]
    page.set_input_files("#book", str(CHATS / "st_matching.json"))  # type: ignore[attr-defined]
    drop_file(page, "#chat", mixed)
    page.wait_for_function("document.getElementById('chat-source').textContent.includes('mixed.jsonl')")  # type: ignore[attr-defined]
    page.click("#activate button[type=submit]")  # type: ignore[attr-defined]
    error = page.locator("#play-error")  # type: ignore[attr-defined]
    error.wait_for()
    assert "line 3" in error.inner_text() and "not UTF-8" in error.inner_text()
    # Chromium logs the API's 400 answer on the console: expected here, and the only message.
    assert js_errors == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    js_errors.clear()
