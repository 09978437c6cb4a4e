"""docs/fidelity.md is generated from the mapping tables and must be current (CI runs this too)."""

from __future__ import annotations

from pathlib import Path

from interop import docs
from interop.fidelity import matrix
from interop.mappings import all_mappings

REPO = Path(__file__).parents[2]
DOC = REPO / "docs" / "fidelity.md"


def test_fidelity_doc_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == matrix.render(), (
        "docs/fidelity.md is out of date: run python -m interop.docs --write"
    )


def test_check_mode_detects_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "docs" / "fidelity.md"
    stale.parent.mkdir()
    stale.write_text("old\n", encoding="utf-8")
    (tmp_path / "README.md").write_text((REPO / "README.md").read_text(encoding="utf-8"), encoding="utf-8")
    assert stale in docs.stale_docs(tmp_path)
    assert docs.main(["--check", "--root", str(tmp_path)]) == 1
    assert docs.main(["--write", "--root", str(tmp_path)]) == 0
    assert docs.main(["--check", "--root", str(tmp_path)]) == 0
    assert stale.read_text(encoding="utf-8") == matrix.render()


def test_matrix_has_a_column_per_target_and_a_row_per_canonical_field() -> None:
    text = matrix.render()
    header = next(line for line in text.splitlines() if line.startswith("| field |"))
    mappings = all_mappings()
    for mapping in mappings:
        for target in mapping.targets:
            assert f"`{target}`" in header
    rows = {line.split("|")[1].strip(" `") for line in text.splitlines() if line.startswith("| `")}
    ccv3 = next(m for m in mappings if m.platform == "ccv3")
    assert {f"{f.level}.{f.canonical}" for f in ccv3.fields} <= rows


def test_every_stash_is_documented_with_its_place() -> None:
    text = matrix.render()
    for mapping in all_mappings():
        for rules in mapping.targets.values():
            for rule in rules:
                if rule.fate == "stashed" and rule.where:
                    assert f"`{rule.pattern}` -> `{matrix._text(rule.where)}`" in text
    explained = [m for m in all_mappings() if m.platform in m.stash_why]
    assert {m.platform for m in explained} >= {"ccv3", "sillytavern", "risu", "agnai", "novelai"}
    for mapping in explained:
        assert f"(`{mapping.platform}`)" in text
        assert mapping.stash_why[mapping.platform] in text
