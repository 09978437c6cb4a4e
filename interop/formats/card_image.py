"""Pictures of cards, neutral (PNG cards and CHARX containers of every platform use it): the picture
a card is written into, and the type a picture's bytes show."""

from __future__ import annotations

import hashlib
import io
import warnings
from typing import Any

from ..containers.png import is_png
from ..document import Document
from ..errors import CorruptInputError, LimitExceededError
from ..model import Card
from ..model.versions import as_displayed
from .registry import WriteContext

DEFAULT_AVATAR_SIZE = (400, 600)


def sniff_image(data: bytes) -> str | None:
    """The picture type its first bytes show (``png``, ``jpeg``, ``gif``, ``webp``, ``avif``), else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[4:12] in (b"ftypavif", b"ftypavis"):
        return "avif"
    return None


def _as_png(image: bytes) -> bytes:
    """A PNG version of a picture that is not a PNG yet (re-encoding is fine: it holds no card)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(image)) as img:
                out = io.BytesIO()
                if getattr(img, "is_animated", False):
                    img.save(out, format="PNG", save_all=True)
                else:
                    img.load()
                    if img.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"):
                        img = img.convert("RGBA")
                    img.save(out, format="PNG")
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise LimitExceededError(f"image too large to convert: {exc}", location="image") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise CorruptInputError(f"image could not be converted to PNG: {exc}", location="image") from None
    return out.getvalue()


def default_avatar(name: str | None) -> bytes:
    """A plain deterministic 400x600 picture with the card's initial, for cards that have no image."""
    from PIL import Image, ImageDraw, ImageFont

    label = (name or "?").strip()[:1].upper()
    if not label.isprintable() or "\ud800" <= label <= "\udfff":
        label = "?"
    digest = hashlib.sha256((name or "").encode("utf-8", "surrogatepass")).digest()
    background = (64 + digest[0] % 128, 64 + digest[1] % 128, 64 + digest[2] % 128)
    img = Image.new("RGB", DEFAULT_AVATAR_SIZE, background)
    draw = ImageDraw.Draw(img)
    try:
        font: Any = ImageFont.load_default(size=280)
    except (OSError, TypeError):  # Pillow without FreeType: small bitmap font
        font = ImageFont.load_default()
    draw.text((DEFAULT_AVATAR_SIZE[0] / 2, DEFAULT_AVATAR_SIZE[1] / 2), label, fill="white", font=font, anchor="mm")
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()


def main_icon(card: Card, assets: dict[str, bytes]) -> bytes | None:
    """The bytes of the card's main icon among embedded assets (a CHARX's ``icon`` named ``main`` first)."""
    icons = [a for a in card.data.assets or [] if a.type == "icon" and isinstance(a.uri, str) and a.uri in assets]
    icons.sort(key=lambda a: a.name != "main")
    return assets[icons[0].uri] if icons else None


def base_image(doc: Document, ctx: WriteContext, card: Card) -> bytes:
    """The PNG the card goes into: ``ctx.image``, ``doc.image``, the main icon asset, else a generated avatar."""
    for image in (ctx.image, doc.image, main_icon(card, doc.assets)):
        if image is not None:
            return image if is_png(image) else _as_png(image)
    name = as_displayed(card).data.name
    return default_avatar(name if isinstance(name, str) else None)
