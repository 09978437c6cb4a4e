"""Write the text-generation-webui character YAML samples of this folder (authored for the project).

Shapes (oobabooga/text-generation-webui ``modules/chat.py``):
``generate_character_yaml`` output (``name``, ``greeting``, ``context``, in that
order, block text), and a hand-edited character with the extra keys older
versions and users add (``your_name``, ``example_dialogue``), a comment, a
quoted string and a date-like value that must stay text. All text is original.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

WEBUI_SAVED = """\
name: Tamsin Reed
greeting: |-
  *Tamsin pushes a chipped mug across the counter.* Rain again. You'll want something hot.
context: |-
  Tamsin Reed runs the night shift at a roadside diner on the moor road.
  She is dry, observant and kind to strangers who do not ask too many questions.

  Tamsin: Coffee's free after midnight. Don't tell the owner.
"""

HAND_EDITED = """\
# edited by hand after saving from the web UI
name: "Brother Aldous"
your_name: Pilgrim
context: >-
  Brother Aldous keeps the library of a mountain monastery and answers every
  question with another question.
greeting: Welcome, {{user}}. What brings you up the mountain?
example_dialogue: |-
  {{user}}: Is the library open?
  {{char}}: Is any door truly closed?
last_edited: 2024-03-01
"""

SAMPLES = {"tamsin_webui.yaml": WEBUI_SAVED, "aldous_hand_edited.yaml": HAND_EDITED}


def main() -> None:
    for name, text in SAMPLES.items():
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
