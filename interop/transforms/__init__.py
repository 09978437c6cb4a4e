"""Cross-platform rewrites of the canonical model, composed per target.

A platform package never imports another; what one platform's data must become
for another app (SillyTavern settings <-> Risu decorators, ...) lives here,
written against the canonical model and the mapping tables.
"""
