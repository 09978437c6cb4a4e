"""Round-trip checks and loss reports: what a conversion keeps, translates, stashes, approximates or loses.

``fidelity_report(doc, target)`` is the entry point; docs/fidelity.md explains
the method and holds the platform matrix generated from the mapping tables
(``python -m interop.docs --write``).
"""

from .hooks import Finding, register_hook
from .report import SCHEMA_VERSION, FidelityItem, FidelityReport, fidelity_report

__all__ = ["SCHEMA_VERSION", "FidelityItem", "FidelityReport", "Finding", "fidelity_report", "register_hook"]
