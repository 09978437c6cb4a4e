"""YAML loading guards (interop.yamlio): aliases, depth, size, encoding, JSON-only values."""

from __future__ import annotations

import pytest

from interop.errors import CorruptInputError, InteropError, LimitExceededError
from interop.limits import Limits
from interop.yamlio import dump_yaml, load_yaml

BILLION_LAUGHS = b"""\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
name: *d
"""


def test_alias_to_a_collection_is_refused_with_its_place() -> None:
    with pytest.raises(CorruptInputError, match="alias") as info:
        load_yaml(BILLION_LAUGHS, file="bomb.yaml")
    assert info.value.location == "line 2 column 8"  # the first *a


def test_scalar_aliases_are_read_and_their_expansion_is_bounded() -> None:
    assert load_yaml(b"x: &n Nell\nname: *n\n") == {"x": "Nell", "name": "Nell"}
    text = b"x: &n " + b"a" * 100 + b"\n" + b"".join(b"k%d: *n\n" % i for i in range(20))
    with pytest.raises(LimitExceededError, match="aliases expand"):
        load_yaml(text, limits=Limits(max_text_bytes=1500))


def test_depth_and_size_limits() -> None:
    deep = b"a: " + b"[" * 300 + b"]" * 300
    with pytest.raises(LimitExceededError, match="nests deeper"):
        load_yaml(deep)
    assert load_yaml(b"a: " + b"[" * 50 + b"]" * 50)
    with pytest.raises(LimitExceededError, match="exceeds the limit"):
        load_yaml(b"name: x\n" * 100, limits=Limits(max_text_bytes=100))


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (b"name: \xff\xfe\n", "UTF-8"),
        (b"name: [unclosed\n", "invalid YAML"),
        (b"1: one\n", "not a string"),
        (b"? [a, b]\n: c\n", "unhashable key"),
        (b"!!python/object:os.system {}\n", "invalid YAML"),
        (b"s: !!set {a, b}\n", "no JSON equivalent"),
        (b"a: 1\n---\nb: 2\n", "invalid YAML"),
    ],
)
def test_bad_yaml_is_a_typed_error(text: bytes, error: str) -> None:
    with pytest.raises(InteropError, match=error):
        load_yaml(text, file="x.yaml")


def test_timestamps_and_binary_stay_text() -> None:
    assert load_yaml(b"d: 2024-03-01\nt: 2001-12-14t21:59:43.10-05:00\nb: !!binary aGk=\n") == {
        "d": "2024-03-01",
        "t": "2001-12-14t21:59:43.10-05:00",
        "b": "aGk=",
    }


def test_dump_keeps_order_unicode_and_block_text() -> None:
    value = {"name": "星野", "greeting": "line one\nline two", "context": "", "n": 3}
    text = dump_yaml(value)
    assert text.decode().startswith("name: 星野\ngreeting: |-\n  line one\n  line two\n")
    assert load_yaml(text) == value
    tricky = {"a": "trailing space \nnext", "b": " leading", "c": "- dash", "d": "yes", "e": "null"}
    assert load_yaml(dump_yaml(tricky)) == tricky
