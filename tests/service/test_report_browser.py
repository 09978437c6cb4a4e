"""Issue 19 item 3/5: the web page's report section shows the same view the CLI prints.

A real Chromium (Debian's, through Playwright, fixtures of ``test_browser``) converts a world
whose conversion has all of it: a verdict with losses, an app verdict with findings, fields the
conversion added and a reading warning. Each must appear on the page as the CLI says it; entry
names are checked against the source file's own comments.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from interop.cli import cli

from ..conftest import PROJECT_CORPUS
from .test_browser import browser, drop_file, js_errors, need, page  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

ODD = PROJECT_CORPUS / "sillytavern" / "odd_values_world.json"


def cli_report(tmp_path: Path) -> tuple[list[str], list[str]]:
    """(stdout lines, stderr lines) of ``interop convert ODD --to ccv3 --details`` (the page lists every
    added field, as --details does; without it many are packed per object)."""
    args = ["convert", str(ODD), "--to", "ccv3", "-o", str(tmp_path / "cli.json"), "--details"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines(), result.stderr.splitlines()


def flat(text: str) -> str:
    return " ".join(text.split())


def test_report_section_shows_verdict_apps_added_and_warnings(
    page: object,  # noqa: F811
    server: str,
    tmp_path: Path,
) -> None:
    need(ODD)
    out, err = cli_report(tmp_path)
    verdict = out[1]
    assert verdict.startswith("sillytavern-world -> ccv3: LOSSES")
    page.goto(server + "/")  # type: ignore[attr-defined]
    drop_file(page, "#drop", ODD)
    card = page.locator("article.doc").first  # type: ignore[attr-defined]
    card.locator(".meta", has_text="lorebook entries").wait_for()
    page.select_option("#app", "")  # type: ignore[attr-defined]  # "a specific format…" (issue 21 app menu)
    page.select_option("#target", "ccv3")  # type: ignore[attr-defined]
    card.locator("button.convert").click()
    card.locator(".report .verdict").wait_for()

    # The verdict line comes first, word for word the CLI's.
    assert card.locator(".report .verdict").inner_text() == verdict
    assert "losses" in (card.locator(".report .verdict").get_attribute("class") or "")

    # The app verdict: the CLI's summary line, its findings grouped, entries by their comment.
    comments = [e["comment"] for e in json.loads(ODD.read_text())["entries"].values()]
    apps = card.locator(".report-apps")
    assert apps.is_visible()
    summary = next(line.strip() for line in out if line.strip().startswith("at sillytavern"))
    assert flat(apps.locator(".app-summary").first.inner_text()) == flat(summary)
    entries = " ".join(apps.locator(".group-entries").all_inner_texts())
    assert all(name in entries for name in comments)  # each entry named by its comment, none by index
    assert "entry[" not in entries

    # Added fields: the same lines as the CLI.
    added_at = out.index("  added (the source lacks them; the output has them):")
    section = []
    for line in out[added_at + 1 :]:
        if not line.startswith("    "):
            break
        section.append(line)
    shown = card.locator(".report-added li").all_inner_texts()
    assert card.locator(".report-added").is_visible()
    assert len(shown) == sum(1 for line in section if not line.startswith("      "))  # CLI wraps long lines
    assert flat(" ".join(shown)) == flat(" ".join(section))

    # Warnings: what reading the source warned about (the CLI says it on stderr).
    warnings = card.locator(".report-warnings li").all_inner_texts()
    cli_warnings = [line.removeprefix("warning: ") for line in err if line.startswith("warning: ")]
    assert cli_warnings and card.locator(".report-warnings").is_visible()
    reading = [w.removeprefix("reading the source: ") for w in warnings if w.startswith("reading the source: ")]
    assert reading == cli_warnings
    # ... and the report's own warnings (the card a lorebook is wrapped in), as the CLI prints them.
    own = [w for w in warnings if not w.startswith("reading the source: ")]
    printed = flat(" ".join(out))
    assert own and all(flat(f"warning: {w}") in printed for w in own)

    # The groups: the CLI's rule lines, with the entry they affect named.
    lost = card.locator(".report-groups .group.fate-lost")
    assert lost.count() == 1 and "entry.**" in lost.first.inner_text() and "Odd filter" in lost.first.inner_text()
    # And every field is still in the table, filterable by fate (labels from the one fate list).
    labels = card.locator(".fate-filter label").all_inner_texts()
    assert [label.rsplit(" (", 1)[0].strip() for label in labels][:3] == ["kept", "not applicable", "kept (default)"]
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)  # type: ignore[attr-defined]
