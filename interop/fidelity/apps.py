"""Target-application models: what each app loads from a file, compared with the source's settings.

Our reader agreeing with our writer proves the data is in the file; these models say what
the application does with the file on import (facts from its import code, cited per module).
``app_verdicts`` compares, entry by entry, the source's settings in the app's own terms with
what the app loads from the output, and names every difference as a report finding.

Which app judges a conversion (``apps_for``): the target's platform when it is an app;
for a generic card/lorebook target (ccv3 family), the source's app, or SillyTavern for a
generic source. A conversion into the source's own format is the same bytes for the app:
nothing to compare.
"""

from __future__ import annotations

from ..api import read_probe
from ..appmodel.card_book import share_output_json
from ..appmodel.verdict import AppModel, AppVerdict
from ..document import Document
from ..platform import registry
from ..platform.registry import Platform, Probe, all_platforms, get_platform, load_all

__all__ = ["AppVerdict", "app_verdicts", "apps_for", "docs_section", "read_output"]

NO_BOOK_TARGETS = ("ccv1",)
"""A V1 card has no lorebook: its mapping table says where the book goes (a stash)."""


def _model(name: str) -> AppModel | None:
    """The app model a platform registers (``Platform.app_check``); None for none or an unknown name."""
    try:
        return get_platform(name).app_check
    except KeyError:
        return None


def _generic(name: str) -> bool:
    try:
        return get_platform(name).generic
    except KeyError:
        return False


def apps_for(source_platform: str, target_platform: str) -> list[str]:
    """The platforms whose app models judge a conversion (see the module's docstring)."""
    target = _model(target_platform)
    if target is not None and target.judges_own_formats:
        return [target_platform]
    if not _generic(target_platform):
        return []  # e.g. risu-lorebook, agnai-book: the mapping tables and the platform's hazards describe them
    if _model(source_platform) is not None:
        return [source_platform]
    if not _generic(source_platform):
        return []
    return [p.name for p in all_platforms() if p.app_check is not None and p.app_check.judges_generic][:1]


def app_verdicts(
    source: Document, source_platform: str, target_format: str, target_platform: str, output: bytes
) -> list[AppVerdict]:
    if source.format == target_format or source.book is None or target_format in NO_BOOK_TARGETS:
        return []
    verdicts = []
    for model in _models_for(source_platform, target_platform):
        verdict = model(source, output, target_format)
        if verdict is not None:
            verdicts.append(verdict)
    return verdicts


_MODELS: dict[tuple[str, str], tuple[tuple[Platform, ...], tuple[AppModel, ...]]] = {}
"""(source platform, target platform) -> (the registered platforms then, the app models of ``apps_for``)."""
_MODELS_BOUND = 256


def _models_for(source_platform: str, target_platform: str) -> tuple[AppModel, ...]:
    """The app models of ``apps_for``, kept per pair of platforms while the registry holds the same
    platforms (frozen objects, so the same objects give the same answer; tests add and remove some)."""
    load_all()
    registered = tuple(registry._PLATFORMS.values())
    key = (source_platform, target_platform)
    hit = _MODELS.get(key)
    if hit is not None and hit[0] == registered:
        return hit[1]
    models = []
    for app in apps_for(source_platform, target_platform):
        model = get_platform(app).app_check
        assert model is not None  # apps_for names platforms with an app model only
        models.append(model)
    if len(_MODELS) >= _MODELS_BOUND:
        _MODELS.clear()
    _MODELS[key] = (registered, tuple(models))
    return tuple(models)


def read_output(data: bytes, format: str, filename: str | None) -> Document:
    """``read_bytes(data, format=format, filename=filename)`` for the report's read-back, leaving the
    JSON it parsed to the app models, which read the same output bytes next (one parse, not two)."""
    probe = Probe(data, filename)
    doc = read_probe(probe, format=format)
    share_output_json(data, probe.json)
    return doc


def docs_section() -> list[str]:
    """Markdown for docs/fidelity.md: what each app's import does, from the models' own facts."""
    lines = ["## What each app loads", "", *_doc_paragraphs(__doc__), ""]
    for platform in all_platforms():
        model = platform.app_check
        if model is None:
            continue
        lines += [f"### {platform.title} (`{platform.name}`)", ""]
        for text in model.docs:
            lines += [*_doc_paragraphs(text), ""]
        if model.table is not None:
            lines += model.table()
    return lines


def _doc_paragraphs(text: str | None) -> list[str]:
    return [line[4:] if line.startswith("    ") else line for line in (text or "").strip().splitlines()]
