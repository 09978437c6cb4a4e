"""What every platform's activation profile provides (``Platform.profile``), and reading its input books."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..model import Lorebook
from .chat import Chat
from .result import EntryInfo, Result
from .state import ChatState
from .tokenizers import Tokenizer


class Profile(ABC):
    """One platform's activation semantics over that platform's native entries.

    A platform package builds its profile and registers it as ``Platform.profile``; the
    engine finds profiles there (``interop.engine.platform_profiles``), never by name.
    """

    name: str
    """The app whose semantics these are (``Result.platform``)."""
    rank: int = 100
    """Listing order among profiles, lower first (``activate --platform all`` columns, "choose from"
    lists); profiles of new platforms list after the built-in ones."""

    @abstractmethod
    def default_settings(self) -> Any: ...

    @abstractmethod
    def prepare(self, books: Sequence[Any], settings: Any = None) -> Any:
        """Native books (or canonical ``Lorebook`` objects, converted by the adapter) -> a prepared pool."""

    @abstractmethod
    def entries(self, prepared: Any) -> list[EntryInfo]:
        """Every entry of the pool, in pool order, with its identity."""

    @abstractmethod
    def evaluate(
        self,
        prepared: Any,
        chat: Chat,
        settings: Any,
        state: ChatState,
        rng: random.Random,
        tokenizer: Tokenizer,
    ) -> Result: ...


def native_books(books: Sequence[Any], to_native: Callable[[Lorebook], Any]) -> Iterator[tuple[str, Any]]:
    """``(name, native book)`` for each input book of a profile.

    An input is a native object (named ``book<N>``), a ``(name, book)`` pair, or a
    canonical ``Lorebook``, named after the book and converted with ``to_native``: the
    platform's own adapter (its ``Platform.book_to_native``). The engine never carries its
    own converter: a migrated file must be judged exactly as the adapter writes it.
    """
    for number, book in enumerate(books):
        name = f"book{number}"
        if isinstance(book, tuple) and len(book) == 2:
            name, book = str(book[0]), book[1]
        if isinstance(book, Lorebook):
            if isinstance(book.name, str) and book.name:
                name = book.name
            book = to_native(book)
        yield name, book
