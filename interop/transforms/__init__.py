"""Cross-platform rewrites of the canonical model, composed per target.

A platform package never imports another; what one platform's data must become
for another app (SillyTavern settings <-> Risu decorators, ...) lives here,
written against the canonical model and the mapping tables.

Each rewrite records what the target app will not honour where it happens
(``losses.Losses.unsupported`` -> ``Conflict`` records), and each target's
rewrites are composed in one place: ``for_risu`` (an entry on its way into Risu),
``card_for_target`` (what every card / CCv3 book writer adds for its target). The
pieces: ``st_risu`` (SillyTavern knobs <-> Risu decorator lines), ``st_filler``
(SillyTavern's template values around a Risu entry), ``risu_card_line`` (the
``@@dont_activate`` line a Risu-disabled entry carries in a card). ``agnai_keys``
records the keys Agnai would match differently (never rewriting them); ``losses``
holds the recording (``Losses``) and the composition (``compose``) every rewrite uses.
"""
