"""JSON loading guards: nesting depth, encoding, size."""

from __future__ import annotations

import pytest

from interop.errors import CorruptInputError, LimitExceededError
from interop.jsonio import _depth_within, load_json
from interop.limits import Limits


def test_depth_limit_is_enforced_before_parsing() -> None:
    with pytest.raises(LimitExceededError, match="nesting"):
        load_json(b"[" * 300 + b"]" * 300)
    assert load_json(b"[" * 200 + b"]" * 200, limits=Limits(max_json_depth=256))


def test_brackets_inside_strings_do_not_count() -> None:
    with pytest.raises(LimitExceededError):
        load_json(b'[{"a": [[1]]}]', limits=Limits(max_json_depth=3))
    assert load_json(b'[{"a": "[[[[[[\\"[[[["}]', limits=Limits(max_json_depth=2))
    assert _depth_within([{"a": "x", "b": [[1]]}], 4)
    assert not _depth_within([{"a": "x", "b": [[1]]}], 3)


def test_custom_depth_limit() -> None:
    with pytest.raises(LimitExceededError):
        load_json(b'{"a": {"b": {"c": 1}}}', limits=Limits(max_json_depth=2))


def test_bom_is_accepted() -> None:
    assert load_json(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}


def test_invalid_utf8_and_syntax_are_corrupt_input() -> None:
    with pytest.raises(CorruptInputError, match="UTF-8"):
        load_json(b'{"a": "\xff"}', file="f.json")
    with pytest.raises(CorruptInputError, match="line 2"):
        load_json(b'{\n"a": }', file="f.json")


def test_text_size_limit() -> None:
    with pytest.raises(LimitExceededError):
        load_json(b'"' + b"a" * 100 + b'"', limits=Limits(max_text_bytes=50))


def test_lone_surrogates_survive_a_write() -> None:
    from interop.jsonio import dump_json

    value = load_json(b'{"name": "half an emoji \\ud83d", "ok": "\xc3\xa9"}')
    assert load_json(dump_json(value)) == value
    assert load_json(dump_json(value, pretty=False)) == value
