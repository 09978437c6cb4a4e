"""Byte containers (PNG chunks, zip archives, Risu modules): bytes in, parts out, no card semantics."""
