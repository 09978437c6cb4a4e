"""Neutral helpers any platform package may import: card JSON reading (``card_io``), pictures
(``card_image``), dates (``card_dates``), asset origins (``asset_origin``), native chat records
(``chat_native``), and a card <-> standalone book when a target needs the other kind (``as_kind``).

It sits below the platform packages and above ``interop/platform/``; nothing here names a platform.
"""
