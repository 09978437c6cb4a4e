"""Shared fixtures: the project's own corpus and the shared real-world corpus.

The shared corpus (``../shared/corpus``) has unknown licences: it is read in
place, never copied into the repo, and tests that need it skip with a clear
message when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PROJECT_CORPUS = REPO / "corpus"
SHARED_CORPUS = Path(os.environ.get("INTEROP_SHARED_CORPUS", REPO.parent / "shared" / "corpus"))


def shared_files(*subdirs: str) -> list[Path]:
    """Files of the shared corpus under ``subdirs`` (empty list when it is absent)."""
    if not SHARED_CORPUS.is_dir():
        return []
    files: list[Path] = []
    for sub in subdirs:
        folder = SHARED_CORPUS / sub
        if folder.is_dir():
            files.extend(sorted(p for p in folder.rglob("*") if p.is_file()))
    return files


def project_files(*subdirs: str) -> list[Path]:
    files: list[Path] = []
    for sub in subdirs:
        folder = PROJECT_CORPUS / sub
        if folder.is_dir():
            files.extend(sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")))
    return files


def corpus_params(files: list[Path], what: str) -> list[object]:
    """pytest params for a file list, or one skipped param explaining why there are none."""
    if not files:
        reason = f"no {what} files found (is ../shared beside the repo?)"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason))]
    return [pytest.param(p, id=p.name) for p in files]


@pytest.fixture
def shared_corpus() -> Path:
    if not SHARED_CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {SHARED_CORPUS}")
    return SHARED_CORPUS
