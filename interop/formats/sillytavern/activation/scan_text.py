"""What each entry of one scan can see (``WorldInfoBuffer``): the scanned messages, the match*
sources, injected prompts and the recursion buffer, and where each indexed key occurs in them.

Every segment is scanned once through the pool's key index; ``where`` then says, per entry,
whether a key hit lies inside that entry's window. ``text_for`` builds ST's exact scan text for
the entries (and the scoring) that need it.
"""

from __future__ import annotations

from ....activation.chat import Chat, Message
from ....activation.jsvalue import js_trim
from .entries import MAX_SCAN_DEPTH, MIN_ACTIVATIONS, STEntry, STPool, STSettings

JOINER = "\n\x01"
"""ST's ``MATCHER`` separator between buffer parts."""


def scanned_messages(chat: Chat) -> list[Message]:
    """The messages ST's ``Generate`` (public/script.js) hands to ``checkWorldInfo``: "regenerate"
    first deletes a last message that is not the user's; system messages are left out of
    ``coreChat``; "swipe" then pops the reply being swiped (``coreChat.pop()``)."""
    messages = list(chat.messages)
    if chat.generation_type == "regenerate" and messages and messages[-1].role != "user":
        messages.pop()
    visible = [m for m in messages if m.role != "system"]
    if chat.generation_type == "swipe" and visible:
        visible.pop()
    return visible


class KeyHits:
    """Where one key id occurs in the scan segments."""

    __slots__ = ("first_message", "injects", "recursion", "sources")

    def __init__(self) -> None:
        self.first_message = MAX_SCAN_DEPTH + 1
        self.sources: set[str] = set()
        self.injects = False
        self.recursion = False


class ScanText:
    def __init__(self, pool: STPool, chat: Chat, settings: STSettings) -> None:
        self.pool = pool
        self.settings = settings
        visible = scanned_messages(chat)
        self.chat_length = len(visible)
        texts = [f"{m.name}: {m.text}" if settings.include_names else m.text for m in reversed(visible)]
        self.messages = [js_trim(t) for t in texts[:MAX_SCAN_DEPTH]]
        character = chat.character
        self.source_text = {
            "persona": chat.persona_description,
            "description": character.description,
            "personality": character.personality,
            "depth_prompt": character.depth_prompt,
            "scenario": character.scenario,
            "creator_notes": character.creator_notes,
        }
        self.injects = [t for t in settings.scan_injects if t]
        self.recursion: list[str] = []
        self.hits: dict[int, KeyHits] = {}
        self.scanned_messages = 0
        self.skew = 0
        """Extra depth of min-activation widening (``WorldInfoBuffer.#skew``)."""
        self._scan_static()

    def _note(self, text: str) -> set[int]:
        return self.pool.index.scan(text) if len(self.pool.index) else set()

    def _hit(self, kid: int) -> KeyHits:
        hit = self.hits.get(kid)
        if hit is None:
            hit = self.hits[kid] = KeyHits()
        return hit

    def _scan_static(self) -> None:
        for name, text in self.source_text.items():
            if text:
                for kid in self._note(text):
                    self._hit(kid).sources.add(name)
        for text in self.injects:
            for kid in self._note(text):
                self._hit(kid).injects = True

    def scan_messages(self, depth: int) -> None:
        """Index the newest ``depth`` messages (those not indexed yet)."""
        depth = min(depth, len(self.messages))
        while self.scanned_messages < depth:
            i = self.scanned_messages
            for kid in self._note(self.messages[i]):
                hit = self._hit(kid)
                if hit.first_message > i:
                    hit.first_message = i
            self.scanned_messages += 1

    def add_recursion(self, text: str) -> None:
        self.recursion.append(text)
        for kid in self._note(text):
            self._hit(kid).recursion = True

    def entry_window(self, entry: STEntry) -> int | None:
        """``WorldInfoBuffer.get`` with ``depth = entry.scanDepth ?? global``: None when ``depth <= 0``
        (nothing at all is scanned), else how many messages ``slice(0, depth)`` takes (at most 1000).
        A depth that is no whole number still scans: "1" takes one message, 0.5 or "abc" none, but
        the match sources, injected prompts and recursion text are appended all the same."""
        depth = entry.scan_depth
        if depth is None:
            depth = self.settings.depth + self.skew
        if depth <= 0:
            return None
        if depth > MAX_SCAN_DEPTH:
            return MAX_SCAN_DEPTH
        return int(depth) if depth == depth else 0

    def where(self, entry: STEntry, kid: int, scan_state: int) -> str | None:
        """Where key ``kid`` is visible to ``entry`` (None = not visible)."""
        hit = self.hits.get(kid)
        if hit is None:
            return None
        window = self.entry_window(entry)
        if window is None:
            return None
        if hit.first_message < window:
            return f"message {hit.first_message} (0 = newest)"
        for source in entry.sources:
            if source in hit.sources:
                return source
        if hit.injects:
            return "injected prompt"
        if hit.recursion and scan_state != MIN_ACTIVATIONS:
            return "recursion"
        return None

    def text_for(self, entry: STEntry, scan_state: int) -> str:
        """``WorldInfoBuffer.get``: the exact scan text (used by the per-entry path and scoring)."""
        window = self.entry_window(entry)
        if window is None:
            return ""
        text = "\x01" + JOINER.join(self.messages[:window])
        for source in entry.sources:
            if self.source_text[source]:
                text += JOINER + self.source_text[source]
        if self.injects:
            text += JOINER + JOINER.join(self.injects)
        if self.recursion and scan_state != MIN_ACTIVATIONS:
            text += JOINER + JOINER.join(self.recursion)
        return text
