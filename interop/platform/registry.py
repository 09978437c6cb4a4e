"""The one registry of platforms and their formats.

Each platform package (``interop/formats/<platform>/``) registers, from its
``__init__.py``, one ``Platform`` and its ``Format``s (detector, reader, writer).
``load_all`` (here, run by the first lookup) imports every such package once (found on
``PLATFORM_PATH`` and through the ``interop.platforms`` entry point group), so adding a
platform means adding one package, one mapping table in ``mappings/`` and one test file.
Code outside a platform package reaches a platform only through this registry.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from ..appmodel.verdict import AppModel
from ..containers.charx import member_names
from ..containers.png import PNG_SIGNATURE, PngScan, scan
from ..document import Document, Kind
from ..errors import CorruptInputError, InteropError, LimitExceededError
from ..jsonio import load_json
from ..limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    from ..activation.profile import Profile

_T = TypeVar("_T")


class _once(Generic[_T]):
    """``functools.cached_property`` without its per-instance lock (3.11 takes one on every first
    access; each detector's first look at a probe paid it): the value lands in the instance's
    ``__dict__``, where later lookups find it before this descriptor."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> _once[_T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...
    def __get__(self, instance: object | None, owner: type | None = None) -> _T | _once[_T]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


class Probe:
    """Lazy views of an input for detectors, computed once and shared by all of them."""

    def __init__(self, data: bytes, filename: str | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.data = data
        self.filename = filename
        self.limits = limits

    @property
    def suffix(self) -> str:
        return PurePath(self.filename).suffix.lower() if self.filename else ""

    json_error: InteropError | None = None
    """Why input that looks like JSON did not parse (reported when no format claims it)."""

    @_once
    def json(self) -> Any:
        """The parsed JSON if the input is JSON text, else None."""
        head = self.data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
        if head[:1] not in (b"{", b"["):
            return None
        try:
            return load_json(self.data, file=self.filename, limits=self.limits)
        except InteropError as exc:
            self.json_error = exc
            return None

    @_once
    def json_object(self) -> dict[str, Any] | None:
        value = self.json
        return value if isinstance(value, dict) else None

    @_once
    def png(self) -> PngScan | None:
        """The chunk walk of a PNG input (``containers.png.scan``), for every detector that looks at its
        text chunks (keywords only: a value read here would charge the inflate budget) and the PNG
        reader (``scan(chunks=...)``); None when the input is no PNG or its chunks cannot be walked."""
        if self.data[:8] != PNG_SIGNATURE:
            return None
        try:
            return scan(self.data, self.limits)
        except InteropError:
            return None

    @_once
    def zip_names(self) -> list[str] | None:
        """Member names of a zip archive (its central directory, read once for every detector
        that looks inside archives, nothing inflated); None if the input is not a readable zip."""
        return member_names(self.data, limits=self.limits)


@dataclass
class ReadContext:
    filename: str | None = None
    limits: Limits = DEFAULT_LIMITS
    probe: Probe | None = None  # reuse the detector's parse

    def json(self, data: bytes) -> Any:
        if self.probe is not None and self.probe.data is data and self.probe.json is not None:
            return self.probe.json
        return load_json(data, file=self.filename, limits=self.limits)


@dataclass
class WriteContext:
    """Options for writers. ``image`` overrides the picture a PNG card is written into."""

    image: bytes | None = None
    pretty: bool = True
    options: dict[str, Any] = field(default_factory=dict)


Detector = Callable[[Probe], int]
"""Returns a confidence: 0 = not this format, higher wins (100 = certain by content)."""
Reader = Callable[[bytes, ReadContext], Document]
Writer = Callable[[Document, WriteContext], bytes]
Describer = Callable[[Document], dict[str, Any]]


@dataclass(frozen=True)
class Format:
    name: str
    kind: Kind
    title: str
    suffix: str
    platform: str
    detect: Detector | None = None
    read: Reader | None = None
    write: Writer | None = None
    describe: Describer | None = None
    """Platform-specific facts for ``interop inspect``."""
    aliases: tuple[str, ...] = ()
    detect_max: int | None = None
    """The highest confidence ``detect`` returns; None: not said. Reading asks the formats that may
    claim more first and stops when no other can win (``api.best_format``), so a usual card is not
    put to every detector; tests/test_detect_plan.py holds each detector to it."""


T = TypeVar("T")


class Deferred(Generic[T]):
    """A value a platform registers without building it: ``make()`` runs on the first read of the field
    (``Platform.profile``). The activation profiles are only read by ``activate`` and the engine, and
    importing them all was a tenth of the start-up of every other command."""

    def __init__(self, make: Callable[[], T]) -> None:
        self.make = make


class _DeferredField:
    """Dataclass field descriptor: stores a value or a ``Deferred``; reads give the value, the
    ``Deferred`` made once (under a lock, so every thread sees the one object)."""

    _lock = threading.RLock()  # re-entrant: a profile built from another platform's profile must not deadlock

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_deferred_{name}"

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return None  # the field's default
        value = obj.__dict__[self.slot]
        if isinstance(value, Deferred):
            with self._lock:
                value = obj.__dict__[self.slot]
                if isinstance(value, Deferred):
                    value = value.make()
                    obj.__dict__[self.slot] = value
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.slot] = value


@dataclass(frozen=True)
class Platform:
    """What the rest of interop may know about one platform, registered next to its formats.

    Every hook is optional: a platform with formats only needs ``name`` and ``title``.
    """

    name: str
    title: str
    rank: int = 100
    """Listing order among platforms (lower first); new platforms list after the built-in ones."""
    book_to_native: Callable[[Any], Any] | None = None
    """Canonical ``Lorebook`` -> the native lorebook object the app's engine reads (engine profiles)."""
    book_from_native: Callable[[Any], Any] | None = None
    """Native lorebook object -> canonical ``Lorebook``."""
    native_book_kind: Callable[[Any], bool] | None = None
    """True when a parsed JSON value already has this platform's native lorebook shape."""
    profile: Profile | Deferred[Profile] | None = _DeferredField()  # type: ignore[assignment]
    """The activation profile that simulates this platform's lorebooks (``interop activate --platform``;
    the engine finds it here), None when none does (NovelAI). Built in the platform package on the
    shared runtime ``interop.activation``; a fork of an app may register the app's profile object.
    Given as ``Deferred(make)``, it is made on first read (reads always give the profile)."""
    hazards: Callable[[Any], Any] | None = None
    """Canonical ``Lorebook`` -> ``Conflict`` records: what the app would read differently (fidelity)."""
    services: dict[str, Callable[..., Any]] = field(default_factory=dict)
    """Named functions other layers may call by name through the registry (never by module path)."""
    app_check: AppModel | None = None
    """The app's import model (``interop.appmodel.AppModel``, built in the platform package's
    ``app_model.py``): what the application loads from a converted file, compared with the source
    (the fidelity report's app verdicts, docs/fidelity.md "What each app loads"); None when none."""
    generic: bool = False
    """A family of generic spec formats rather than one app's (CCv3): a conversion into it is judged
    by the source platform's app model."""

    def service(self, name: str) -> Callable[..., Any] | None:
        return self.services.get(name)


_FORMATS: dict[str, Format] = {}
_ALIASES: dict[str, str] = {}
_PLATFORMS: dict[str, Platform] = {}


def _register(fmt: Format) -> Format:
    if fmt.name in _FORMATS:
        raise ValueError(f"format {fmt.name!r} registered twice")
    _FORMATS[fmt.name] = fmt
    for alias in fmt.aliases:
        _ALIASES[alias] = fmt.name
    return fmt


def register_platform(platform: Platform, *formats: Format) -> Platform:
    """Register ``platform`` and its formats (each format's ``platform`` must name it)."""
    if platform.name in _PLATFORMS:
        raise ValueError(f"platform {platform.name!r} registered twice")
    for fmt in formats:
        if fmt.platform != platform.name:
            raise ValueError(f"format {fmt.name!r} belongs to {fmt.platform!r}, not {platform.name!r}")
    _PLATFORMS[platform.name] = platform
    for fmt in formats:
        _register(fmt)
    return platform


def unregister_platform(name: str) -> None:
    """Forget a platform and its formats (tests that add a sample platform clean up with this)."""
    _PLATFORMS.pop(name, None)
    for fmt_name in [n for n, f in _FORMATS.items() if f.platform == name]:
        fmt = _FORMATS.pop(fmt_name)
        for alias in fmt.aliases:
            _ALIASES.pop(alias, None)


PLATFORMS_PACKAGE = "interop.formats"
"""The package whose sub-packages are the platform packages (this module sits a layer below it)."""
PLATFORM_PATH: list[str] = [os.path.join(os.path.dirname(os.path.dirname(__file__)), "formats")]
"""Folders searched for platform packages. ``interop.formats`` uses this very list as its
``__path__``, so a folder added to either is both imported from and searched by ``load_all``."""
ENTRY_POINT_GROUP = "interop.platforms"

_searched: set[str] = set()
_entry_points_loaded = False
_load_lock = threading.RLock()
_loading = 0
"""Imports under way in ``load_all`` (read without the lock: 0 once the registry is complete)."""


def platform_packages() -> list[str]:
    """Names of the platform packages found on ``PLATFORM_PATH`` (sub-packages only)."""
    return sorted(info.name for info in pkgutil.iter_modules(PLATFORM_PATH) if info.ispkg)


def load_all() -> None:
    """Import every platform package once: those on ``PLATFORM_PATH`` (a folder added later is
    searched on the next call) and those installed with an ``interop.platforms`` entry point.

    Thread-safe: a thread that asks while another is importing waits for the whole registry
    (it used to see the first packages only, and a read failed as "no known format")."""
    global _entry_points_loaded, _loading
    if not _loading and _entry_points_loaded and all(folder in _searched for folder in PLATFORM_PATH):
        return  # the usual call: everything loaded, no import under way
    with _load_lock:  # re-entrant: a package that looks a format up while it loads
        folders = [folder for folder in PLATFORM_PATH if folder not in _searched]
        first = not _entry_points_loaded
        if not folders and not first:
            return
        _loading += 1  # before the marks: another thread seeing them waits on the lock
        try:
            # Marked before importing: a package that looks a format up while it loads must not recurse.
            _searched.update(folders)
            _entry_points_loaded = True
            if folders:
                for name in platform_packages():
                    importlib.import_module(f"{PLATFORMS_PACKAGE}.{name}")
            if first:
                for entry in entry_points(group=ENTRY_POINT_GROUP):
                    entry.load()
        finally:
            _loading -= 1


def get_platform(name: str) -> Platform:
    load_all()
    if name not in _PLATFORMS:
        raise KeyError(name)
    return _PLATFORMS[name]


def all_platforms() -> list[Platform]:
    load_all()
    return sorted(_PLATFORMS.values(), key=lambda p: p.rank)


def get_format(name: str) -> Format:
    load_all()
    key = _ALIASES.get(name, name)
    if key not in _FORMATS:
        raise KeyError(name)
    return _FORMATS[key]


_ordered: tuple[tuple[Format, ...], tuple[Platform, ...], tuple[Format, ...]] = ((), (), ())
"""The last ``all_formats`` answer and the registry it was sorted from (reused while that is unchanged)."""


def all_formats() -> list[Format]:
    """Every format, grouped by platform in platform order, each platform's in registration order."""
    global _ordered
    load_all()
    # Detection asks on every read; the sort is redone only when the registry changed
    # (compared by content: tests patch ``_FORMATS`` in place).
    formats, platforms = tuple(_FORMATS.values()), tuple(_PLATFORMS.values())
    if formats != _ordered[0] or platforms != _ordered[1]:
        rank = {p.name: p.rank for p in platforms}
        _ordered = (formats, platforms, tuple(sorted(formats, key=lambda f: rank.get(f.platform, 100))))
    return list(_ordered[2])


def writable_formats() -> list[Format]:
    return [f for f in all_formats() if f.write is not None]


def check_size(data: bytes, filename: str | None, limits: Limits) -> None:
    if len(data) > limits.max_file_bytes:
        raise LimitExceededError(
            f"file of {len(data)} bytes exceeds the limit of {limits.max_file_bytes}", file=filename
        )
    if not data:
        raise CorruptInputError("file is empty", file=filename)
