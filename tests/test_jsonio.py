"""JSON loading guards: nesting depth, encoding, size."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# Any JSON value, floats of every magnitude and non-finite ones, surrogates, huge ints, non-string keys.
_any_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
)
_any_json = st.recursive(
    _any_scalar,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(st.one_of(st.text(max_size=8), st.integers(0, 9)), children, max_size=4),
    ),
    max_leaves=20,
)


def _js_finite(value: object) -> object:
    """NaN/Infinity as JSON.stringify writes them: null (issue 23: bare NaN is invalid JSON for every app)."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {k: _js_finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_js_finite(v) for v in value]
    return value


def _stdlib_pretty(value: object) -> bytes:
    """The stdlib's indent=2 form, non-finite floats as null, and only lone surrogates \\u-escaped
    (ES2019 well-formed JSON.stringify writes them so; UTF-8 cannot hold them)."""
    text = json.dumps(_js_finite(value), ensure_ascii=False, indent=2)
    return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text).encode("utf-8") + b"\n"


@settings(max_examples=400, deadline=None)
@given(_any_json)
def test_pretty_output_is_byte_for_byte_the_stdlib_form(value: object) -> None:
    from interop.jsonio import dump_json

    assert dump_json(value) == _stdlib_pretty(value)


def _stdlib_compact(value: object) -> bytes:
    text = json.dumps(_js_finite(value), ensure_ascii=False, separators=(",", ":"))
    return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text).encode("utf-8")


@settings(max_examples=400, deadline=None)
@given(_any_json)
def test_compact_output_is_byte_for_byte_the_stdlib_form(value: object) -> None:
    from interop.jsonio import dump_json

    assert dump_json(value, pretty=False) == _stdlib_compact(value)


class _Text(str):
    pass


class _Number(int):
    pass


class _Object(dict):  # type: ignore[type-arg]
    pass


class _Array(list):  # type: ignore[type-arg]
    pass


class _Level(enum.IntEnum):
    HIGH = 3


class _Kind(enum.StrEnum):
    CARD = "card"


_NESTED: list[object] = []
for _ in range(300):  # orjson refuses past 255 levels, json goes on
    _NESTED = [_NESTED]


@pytest.mark.parametrize(
    "value",
    [
        *(1e-5, -7.07e-06, 4.7e-09, 1e16, float("nan"), float("inf"), (1, 2), {1: "a"}, 2**70, "\ud83d"),
        *("0.00001 e-5", '\u2028\u2029\x7f\x00\x1f"\\/\t\n'),
        *(_Text("a"), _Number(7), _Object(a=[1]), _Array([1, "x"]), OrderedDict(b=1, a=2), {_Text("k"): 1}),
        *(_Level.HIGH, _Kind.CARD, _NESTED, True, {"k": None}),
    ],
)
def test_pretty_output_where_orjson_and_the_stdlib_differ(value: object) -> None:
    from interop.jsonio import dump_json

    assert dump_json({"v": value, "w": [value]}) == _stdlib_pretty({"v": value, "w": [value]})
    assert dump_json({"v": value, "w": [value]}, pretty=False) == _stdlib_compact({"v": value, "w": [value]})


def test_typical_card_output_takes_the_fast_path() -> None:
    """The speed-up applies to real data (else the equality tests above would pass on the slow path alone)."""
    pytest.importorskip("orjson")
    from interop.jsonio import _pretty_fast

    card = {"spec": "chara_card_v3", "data": {"name": "Ilse", "tags": ["a", "b"], "extensions": {"depth": 4}}}
    card["data"]["character_book"] = {"entries": [{"keys": ["x"], "insertion_order": 1.5, "enabled": True}]}
    assert (_pretty_fast(card) or b"") + b"\n" == _stdlib_pretty(card)


def _outcome(parse: object, text: bytes | str) -> tuple[str, object]:
    """A parse's value (repr: tells 1 from 1.0 and -0.0 from 0.0, keeps NaN equal) or its error type."""
    try:
        value = parse(text)  # type: ignore[operator]
    except (ValueError, RecursionError) as exc:
        return "error", type(exc).__name__ if isinstance(exc, RecursionError) else "ValueError"
    try:
        return "value", repr(value)
    except RecursionError:  # a value too deep to repr is still a value, not the parse's error
        return "value", "(too deep to show)"


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": 1, "a": 2}',  # the last of duplicate keys
        b"[18446744073709551616, -9223372036854775809, 123456789012345678901234567890]",  # past 64 bits
        b"[9223372036854775807, -9223372036854775808, 18446744073709551615]",
        b'[1234567890, 1234567890, "12345678901234567890", 0.12345678901234567890123]',  # runs, not all ints
        b"[1e400, -1e400, 1e-400, -0.0, 0.1, 1.5E+3, 5e-324]",
        b"[NaN, Infinity, -Infinity]",  # json takes them, orjson refuses
        b'["\\ud83d", "\\u00e9", "\\u2028"]',  # a lone surrogate escape
        b'["\xed\xa0\x80"]',  # a surrogate written as (invalid) UTF-8: json reads it, orjson refuses
        '["lone \ud83d in text"]',
        "[1, 2]".encode("utf-16-le"),  # json detects UTF-16/32 in bytes
        b"[" * 600 + b"]" * 600,
        b"[" * 1000 + b"]" * 1000,  # json: RecursionError; orjson alone would read it (it allows 1024)
        b"{\"a\":" * 1010 + b"1" + b"}" * 1010,
        b"[" * 1100 + b"]" * 1100,
        b'["a\x01b"]', b"[1,]", b"[1] x", b"", b"\xef\xbb\xbf[1]", b'["\xff"]', b"[01]",
    ],
)
def test_loads_gives_what_json_loads_gives(text: bytes | str) -> None:
    from interop.jsonio import loads

    assert _outcome(loads, text) == _outcome(json.loads, text)


@settings(max_examples=400, deadline=None)
@given(_any_json)
def test_loads_reads_any_json_text_as_json_loads_does(value: object) -> None:
    from interop.jsonio import loads

    text = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    assert _outcome(loads, text) == _outcome(json.loads, text)
    as_text = text.decode("utf-8", "surrogatepass")
    assert _outcome(loads, as_text) == _outcome(json.loads, as_text)


def test_loads_takes_orjson_for_a_typical_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path applies to real data (else the equality tests above would pass on json alone)."""
    pytest.importorskip("orjson")
    from interop import jsonio

    value = {"spec": "chara_card_v3", "data": {"name": "Ilse", "character_book": {"entries": [{"id": 3}]}}}
    card = json.dumps(value).encode()
    monkeypatch.setattr(jsonio.json, "loads", None)  # json.loads not called
    assert jsonio.loads(card) == value
    assert jsonio.load_json(card)["data"]["name"] == "Ilse"



@dataclasses.dataclass
class _Record:
    name: str = "x"


@pytest.mark.parametrize("value", [datetime.date(2026, 11, 28), _Record()])
def test_pretty_output_refuses_what_json_refuses(value: object) -> None:
    """orjson would write dates and dataclasses; dump_json refuses them as the stdlib does."""
    from interop.jsonio import dump_json

    with pytest.raises(TypeError):
        dump_json({"v": [value]})


def _load_outcome(text: bytes | str, limits: Limits) -> tuple[str, object]:
    """``load_json``'s value (repr) or its typed error and message."""
    try:
        return "value", repr(load_json(text, limits=limits))
    except (CorruptInputError, LimitExceededError) as exc:
        return type(exc).__name__, exc.reason


_LOAD_TEXTS = [
    b'{"a": 1, "a": 2}',
    b"[18446744073709551616, -9223372036854775809, 123456789012345678901234567890]",
    b'[1234567890, 1234567890, "12345678901234567890", 0.12345678901234567890123]',
    b"[1e400, -1e400, 1e-400, -0.0, 0.1, 1.5E+3, 5e-324]",
    b"[NaN]",
    b'["NaN", "Infinity"]',
    b'["\\ud83d", "\\u00e9"]',
    b'["\xed\xa0\x80"]',
    b'{"a": "\xff"}',
    b"{\n\"a\": }",
    "[1, 2]".encode("utf-16-le"),
    b"\xef\xbb\xbf[1]",
    b"[" * 5 + b"]" * 5,
    b'[[["[[[[[[[[[["]]]',  # brackets in a string: not nesting
    b"[" * 300 + b"]" * 300,
    b"[" * 600 + b"]" * 600,
    b"[" * 1000 + b"]" * 1000,
    b"[" * 1100 + b"]" * 1100,
    '["lone \ud83d in text"]',
]


@pytest.mark.parametrize("text", _LOAD_TEXTS)
@pytest.mark.parametrize("depth", [4, 256])
def test_load_json_orjson_path_gives_the_checked_outcome(text: bytes | str, depth: int) -> None:
    """The orjson path of ``load_json`` (one parse, one scan) returns what the checked json path
    returns, and raises the same typed error with the same message when it hands over."""
    _orjson_path_agrees(text, depth)


def test_load_json_takes_one_orjson_parse_for_a_typical_card(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("orjson")
    from interop import jsonio

    value = {"spec": "chara_card_v3", "data": {"name": "Ilse", "character_book": {"entries": [{"id": 3}]}}}
    monkeypatch.setattr(jsonio.json, "loads", None)
    monkeypatch.setattr(jsonio, "loads", None)
    assert load_json(json.dumps(value, indent=2).encode()) == value


@settings(max_examples=300, deadline=None)
@given(_any_json)
def test_load_json_orjson_path_on_any_json_text(value: object) -> None:
    pytest.importorskip("orjson")
    from interop import jsonio

    text = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    fast = _load_outcome(text, Limits())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonio, "_orjson", None)
        assert fast == _load_outcome(text, Limits())


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": [{"b": 123456789012345678901234567890}]}',  # past 64 bits, three levels down
        b'{"a": {"b": {"c": [-9223372036854775809]}}}',
        b'[[[[18446744073709551616]]]]',
        b"1e19",  # a float literal with an integral value past 2**63: json takes it, alike
        b'{"x": [1e19, 9.3e18, 1.5, -1e300]}',
        b"123456789012345678901234567890",  # a bare one at the root
    ],
)
@pytest.mark.parametrize("depth", [3, 256])
def test_load_json_big_numbers_at_any_level_give_the_checked_outcome(text: bytes, depth: int) -> None:
    _orjson_path_agrees(text, depth)


def test_an_integer_past_64_bits_is_never_orjsons_float() -> None:
    value = load_json(b'{"a": [{"b": 123456789012345678901234567890}]}')
    assert value["a"][0]["b"] == 123456789012345678901234567890
    assert isinstance(value["a"][0]["b"], int)


def _orjson_path_agrees(text: bytes | str, depth: int) -> None:
    """The orjson path's outcome (value, or typed error and message) equals the checked json path's."""
    pytest.importorskip("orjson")
    from interop import jsonio

    limits = Limits(max_json_depth=depth)
    fast = _load_outcome(text, limits)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonio, "_orjson", None)
        assert fast == _load_outcome(text, limits)
