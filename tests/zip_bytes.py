"""Zip bytes built in tests (CHARX, .byaf, service uploads), with zipfile itself."""

from __future__ import annotations

import io
import warnings
import zipfile

from interop.containers.charx import ZIP_DEFLATED


def make_zip(members: list[tuple[str, bytes]], *, method: int = ZIP_DEFLATED, mode: int = 0o100644) -> bytes:
    """A zip built with zipfile itself; names are written exactly as given (zip-slip tests need that)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns on duplicate names; one test wants them
        with zipfile.ZipFile(buffer, "w") as zf:
            for name, content in members:
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = method
                info.external_attr = mode << 16
                zf.writestr(info, content)
    return buffer.getvalue()


def zip_of(members: dict[str, bytes]) -> bytes:
    """A deflated zip of ``{name: bytes}``, names exactly as given."""
    return make_zip(list(members.items()))
