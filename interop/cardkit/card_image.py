"""Pictures of cards, neutral (PNG cards and CHARX containers of every platform use it): the picture
a card is written into, and the type a picture's bytes show."""

from __future__ import annotations

import binascii
import functools
import hashlib
import io
import mimetypes
import warnings
from typing import Any

from ..containers.png import is_png, is_stale_keyword, splice_text_chunks
from ..document import Document
from ..errors import CorruptInputError, InteropError, LimitExceededError
from ..model import Card
from ..model.versions import as_displayed
from ..platform.registry import WriteContext

DEFAULT_AVATAR_SIZE = (400, 600)
_AVATAR_MAX_BYTES = 16 * 1024  # generated avatars are 3-6 KB
DATA_URL = "data:"
_MIMETYPES = mimetypes.MimeTypes()  # Python's own table only: the same answer on every machine
_MIME = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "avif": "image/avif"}


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


def data_url(blob: bytes, ext: object = None) -> str:
    """``blob`` as a base64 data URL (CCv3 allows them in ``assets[].uri``), typed by its first bytes
    (a picture) or else by the asset's ``ext`` (``wav`` -> ``audio/x-wav``)."""
    guessed = _MIMETYPES.guess_type(f"asset.{ext}")[0] if isinstance(ext, str) and ext else None
    mime = _MIME.get(sniff_image(blob) or "") or guessed or "application/octet-stream"
    return f"{DATA_URL}{mime};base64," + binascii.b2a_base64(blob, newline=False).decode("ascii")


def data_url_bytes(uri: str) -> bytes:
    """The bytes of a base64 ``data:`` URL (CorruptInputError when it is not one or does not decode)."""
    head, comma, payload = uri.partition(",")
    if not head.startswith(DATA_URL) or not comma or not head.endswith(";base64"):
        raise CorruptInputError("not a base64 data URL", location="data URL")
    try:
        return binascii.a2b_base64("".join(payload.split()), strict_mode=True)  # line breaks allowed
    except binascii.Error as exc:
        raise CorruptInputError(f"data URL is not valid base64 ({exc})", location="data URL") from None


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
    label = (name or "?").strip()[:1].upper()
    if not label.isprintable() or "\ud800" <= label <= "\udfff":
        label = "?"
    digest = hashlib.sha256((name or "").encode("utf-8", "surrogatepass")).digest()
    return _rendered_avatar(label, (64 + digest[0] % 128, 64 + digest[1] % 128, 64 + digest[2] % 128))


@functools.lru_cache(maxsize=64)
def _rendered_avatar(label: str, background: tuple[int, int, int]) -> bytes:
    """The avatar's PNG: the letter and colour are all it depends on. Cached (64 x ~5 KB): rendering and
    compressing one costs ~20 ms, and a run writes one card's avatar for each picture target
    (png, NovelAI) and checks PNG sources against it (``is_default_avatar``)."""
    from PIL import Image, ImageDraw, ImageFont

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


def plain_picture(doc: Document, picture: bytes) -> bytes:
    """A card picture without its card and asset text chunks (an icon must not carry a stale second card)."""
    if not is_png(picture):
        return picture
    try:
        return splice_text_chunks(picture, [], is_stale_keyword)
    except InteropError as exc:
        doc.warn(f"card picture kept as is: its PNG chunks could not be cleaned ({exc.reason})")
        return picture


def is_default_avatar(picture: bytes, name: object) -> bool:
    """Is ``picture`` (card chunks removed) the avatar ``default_avatar`` makes for a card named ``name``?

    Such a picture was invented for a card that had none; it is no picture of the card. Rendering one
    costs ~60 ms, so only a small (a few KB: one flat colour and a letter) 400x600 8-bit RGB PNG gets
    that far; real pictures of that size are far larger.
    """
    if len(picture) > _AVATAR_MAX_BYTES or not is_png(picture) or picture[12:16] != b"IHDR":
        return False
    width, height = int.from_bytes(picture[16:20], "big"), int.from_bytes(picture[20:24], "big")
    if (width, height) != DEFAULT_AVATAR_SIZE or picture[24:26] != b"\x08\x02":  # bit depth 8, RGB
        return False
    return picture == default_avatar(name if isinstance(name, str) else None)


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
