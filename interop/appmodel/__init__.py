"""The runtime every platform's app model shares (issue 22): verdicts, findings, field paths and
the card book an app imports from output bytes.

An app model says what one application loads from a converted file (facts from its import
code); it lives in its platform package (``interop/formats/<platform>/app_model.py``) and is
registered as ``Platform.app_check`` (an ``AppModel``). This package sits below the platform
packages, so each of them can build one, and below the fidelity report, which asks the
registry for them (``interop.fidelity.apps``).
"""

from .card_book import card_book, open_verdict, parse_output
from .verdict import AppModel, AppVerdict, Finding

__all__ = ["AppModel", "AppVerdict", "Finding", "card_book", "open_verdict", "parse_output"]
