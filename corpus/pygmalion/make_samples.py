"""Write the Pygmalion / Gradio character JSON samples of this folder (authored for the project).

Shape: the JSON the 2023 Pygmalion Gradio UI and character editors saved
(``char_name``, ``char_persona``, ``char_greeting``, ``world_scenario``,
``example_dialogue``), as SillyTavern's ``importFromJson`` reads it
(``src/endpoints/characters.js``), plus the optional keys that importer also
reads (``creator_notes`` with the editor's placeholder, ``creator``, ``tags``,
``talkativeness``) and one key nothing reads. All text is original.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def gradio_minimal() -> dict[str, Any]:
    return {
        "char_name": "Orrin Vale",
        "char_persona": "A retired lighthouse keeper who still logs every passing ship in a battered ledger.",
        "char_greeting": "*Orrin looks up from the ledger.* Another traveller. Sit, the kettle's on.",
        "world_scenario": "A storm has closed the harbour road; {{user}} shelters in the old lighthouse.",
        "example_dialogue": (
            "<START>\n{{user}}: What do you write in there?\n"
            "{{char}}: Names of ships. And the ones that never came back."
        ),
    }


def editor_export() -> dict[str, Any]:
    return {
        **gradio_minimal(),
        "char_name": "Mirela Stone",
        "char_persona": "Mirela's Persona: a stonemason's apprentice, stubborn, fond of riddles.\nLikes: granite, tea.",
        "char_greeting": "You're late. The mortar won't wait for anyone.",
        "creator_notes": "Creator's notes go here. Written for slow-burn village stories.",
        "creator": "interop-samples",
        "tags": ["village", "craft"],
        "talkativeness": 0.7,
        "editor_version": "1.2",
    }


SAMPLES = {"orrin_gradio.json": gradio_minimal, "mirela_editor.json": editor_export}


def main() -> None:
    for name, make in SAMPLES.items():
        (HERE / name).write_text(json.dumps(make(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
