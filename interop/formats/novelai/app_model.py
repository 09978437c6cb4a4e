"""NovelAI's verdict: NovelAI imports only its own formats (``.lorebook``, ``.scenario``, story
exports, lorebook PNGs with a ``naidata`` chunk); it has no character-card import. A card
written from a NovelAI source is for another app, which the report then cannot vouch for at
NovelAI: the verdict says so, with no findings.
"""

from __future__ import annotations

from ...appmodel.verdict import AppModel, AppVerdict
from ...document import Document

APP = "novelai"


def findings(source: Document, output: bytes, target_format: str) -> AppVerdict:
    verdict = AppVerdict(APP, via="(no card import)")
    if not target_format.startswith("novelai"):
        verdict.notes.append(
            f"NovelAI has no character-card import: a {target_format} file is loaded by SillyTavern, RisuAI or "
            "Agnai, not NovelAI; convert to novelai-lorebook/novelai-scenario to go back to NovelAI"
        )
    return verdict


MODEL = AppModel(findings, docs=(__doc__,))
