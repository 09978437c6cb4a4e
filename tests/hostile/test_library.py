"""Every hostile case through the library (issue 23): a typed error or a clean read and write, in bounded CPU time."""

from __future__ import annotations

import io
import json
import resource
import zipfile
from pathlib import Path
from typing import Any

import pytest

import interop
from interop.errors import InteropError, LimitExceededError, UnsafeInputError
from interop.io import read_limited
from interop.limits import Limits
from tests.hostile.cases import CASE_IDS, CASES, Case, special_files

CPU_BOUND_S = 8.0
"""Generous: "bounded", not a speed target (the zTXt bomb cost 11 s before the budget, ~0.8 s after)."""

CARD_TARGETS = ("ccv3", "ccv2", "sillytavern-card", "agnai-character", "charx", "risu-charx", "png", "textgen-yaml")
BOOK_TARGETS = ("sillytavern-world", "risu-lorebook", "agnai-book", "lorebook_v3", "novelai-lorebook", "risum")


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _refuse_constant(token: str) -> Any:
    raise AssertionError(f"bare {token} in JSON output (JSON.parse refuses it)")


def strict_json(data: bytes, what: str) -> Any:
    """Parse as the apps do: UTF-8 (no lone surrogate bytes), no NaN/Infinity tokens."""
    return json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)


def json_parts(target: str, data: bytes) -> list[bytes]:
    """The JSON texts inside an output (the output itself, or card.json / module JSON of a zip)."""
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return [archive.read(n) for n in archive.namelist() if n.endswith(".json")]
    if target in ("png", "textgen-yaml", "risum"):
        return []  # base64 in a chunk / YAML / binary: read back below instead
    return [data]


def check_case(case: Case) -> None:
    if case.error is not None:
        with pytest.raises(case.error) as info:
            interop.read(case.data, filename=case.filename)
        assert info.value.file == case.filename, "the error must name the file"
        return
    doc = interop.read(case.data, filename=case.filename)
    for target in CARD_TARGETS if case.kind == "card" else BOOK_TARGETS:
        try:
            out = interop.write(doc, target)
        except InteropError:
            continue  # a typed refusal is an accepted outcome
        for part in json_parts(target, out):
            strict_json(part, f"{case.name} -> {target}")
        again = interop.read(out, filename=f"out.{target}")  # every output reads back
        assert again.kind == doc.kind


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_hostile_case_through_the_library(case: Case) -> None:
    start = cpu_seconds()
    check_case(case)
    spent = cpu_seconds() - start
    assert spent < CPU_BOUND_S, f"{case.name} took {spent:.1f} s of CPU"


def test_huge_integers_are_limit_errors_naming_the_digit_limit() -> None:
    # item 1: int() past 4,300 digits raised a plain ValueError (CLI exit 4, HTTP 500)
    for case in (c for c in CASES if "huge" in c.name):
        with pytest.raises(LimitExceededError, match="4300 digits"):
            interop.read(case.data, filename=case.filename)


def test_ztxt_budget_is_a_limit_that_can_be_raised() -> None:
    # item 5: one inflate budget per file, named in the message and raisable with --limit
    bomb = next(c for c in CASES if c.name == "png_ztxt_bomb")
    with pytest.raises(LimitExceededError, match="max_inflated_total"):
        interop.read(bomb.data, filename=bomb.filename)
    start = cpu_seconds()
    with pytest.raises(LimitExceededError, match="max_inflated_total"):
        interop.read(bomb.data, filename=bomb.filename, limits=Limits(max_inflated_total=1024))
    assert cpu_seconds() - start < 1.0


def test_lone_surrogate_is_written_escaped_as_json_stringify_does() -> None:
    # item 2: JSON.stringify (ES2019 well-formed) writes a lone surrogate as a \\uXXXX escape,
    # and JSON.parse reads that back: the apps accept it, so it is kept, not refused.
    case = next(c for c in CASES if c.name == "json_lone_surrogate")
    doc = interop.read(case.data, filename=case.filename)
    out = interop.write(doc, "ccv3")
    assert b"\\ud800" in out and strict_json(out, "ccv3")["data"]["name"] == "half \ud800 emoji"
    charx = interop.write(doc, "risu-charx")
    assert interop.read(charx).title == "half \ud800 emoji"


def test_nan_and_infinity_are_written_null_as_json_stringify_does() -> None:
    case = next(c for c in CASES if c.name == "json_overflow_float")
    doc = interop.read(case.data, filename=case.filename)  # 1e400 reads as Infinity in Python and in JSON.parse
    out = strict_json(interop.write(doc, "ccv3"), "ccv3")
    assert out["data"]["extensions"]["x"] is None


# --- special files: item 6 -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["dev_zero", "fifo", "symlink_to_device"])
def test_special_files_are_refused_without_reading(tmp_path: Path, name: str) -> None:
    special = next(s for s in special_files(tmp_path) if s.name == name)
    start = cpu_seconds()
    with pytest.raises(UnsafeInputError, match=f"not a regular file \\({special.kind}\\)") as info:
        interop.read(special.path)
    assert info.value.file == str(special.path)
    assert cpu_seconds() - start < 1.0


def test_reads_are_bounded_by_the_limit_not_by_stat_size(tmp_path: Path) -> None:
    # a file that grows after stat() (or lies about its size) is cut at the limit, not read whole
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 5000)
    assert read_limited(path, 5000) == b"x" * 5000
    with pytest.raises(LimitExceededError, match="limit of 4999"):
        read_limited(path, 4999)
    with pytest.raises(LimitExceededError):
        interop.read(path, limits=Limits(max_file_bytes=100))


def test_infinity_written_null_is_named_in_the_fidelity_report() -> None:
    from interop.fidelity import fidelity_report

    case = next(c for c in CASES if c.name == "world_overflow_order")
    doc = interop.read(case.data, filename=case.filename)
    data = interop.write(doc, "sillytavern-world")
    assert strict_json(data, "sillytavern-world")["entries"]["0"]["order"] is None
    items = {item["path"]: item for item in fidelity_report(doc, "sillytavern-world", data).to_json()["items"]}
    assert "Infinity -> null" in items["entry[0].insertion_order"]["detail"]
    assert items["entry[0].insertion_order"]["fate"] == "lost"
