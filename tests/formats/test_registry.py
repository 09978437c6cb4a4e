"""The registry's shared views of an input: each is computed once for every detector."""

from __future__ import annotations

from pathlib import Path

import pytest

from interop.api import detect_all
from interop.platform import registry

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


@pytest.mark.parametrize("path", [CORPUS / "charx" / "risu_stored.charx", CORPUS / "backyard" / "nell_harbour.byaf"])
def test_zip_central_directory_read_once(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    real = registry.member_names

    def counted(data: bytes, **kwargs: object) -> list[str] | None:
        reads.append(len(data))
        return real(data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(registry, "member_names", counted)
    assert detect_all(path.read_bytes(), path.name)
    assert len(reads) == 1


def test_zip_names_of_non_zip_is_none() -> None:
    assert registry.Probe(b'{"spec": "chara_card_v3"}').zip_names is None
