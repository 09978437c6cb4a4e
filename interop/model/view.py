"""``dump()`` without the copy: a model's JSON value as views of its own values.

``CanonicalModel.dump`` (pydantic's ``model_dump``) copies every value of a card, a fifth of the
work of cataloguing one. Code that only serializes the dump (the catalog's canonical JSON and
content hashes) can take ``dump_view`` instead: the same dict, key order and values, where the
values are read models' (plain JSON). A value ``dump`` would convert (a model inside an
``extensions`` dict, built in code) is left as it is: a JSON writer refuses it, and the caller
falls back to ``dump``. tests/model/test_view.py checks it against ``dump``.
"""

from __future__ import annotations

import functools
from typing import Any, get_args

from pydantic import BaseModel

from .base import CanonicalModel


@functools.cache
def nested_fields(cls: type[CanonicalModel]) -> tuple[str, ...]:
    """The fields whose declared type holds a model (``Card.data``, ``Lorebook.entries``, ...)."""
    return tuple(name for name, info in cls.__pydantic_fields__.items() if _holds_model(info.annotation))


def _holds_model(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_holds_model(arg) for arg in get_args(annotation))


_SHAPES: dict[type, tuple[frozenset[str], tuple[str, ...]]] = {}
"""A model class -> its field names (the keys of an instance's ``__dict__``) and ``nested_fields``."""


def _shape(cls: type[CanonicalModel]) -> tuple[frozenset[str], tuple[str, ...]]:
    shape = _SHAPES[cls] = (frozenset(cls.__pydantic_fields__), nested_fields(cls))
    return shape


def dump_view(model: CanonicalModel) -> dict[str, Any]:
    """``model.dump()``: the set fields in the model's order, then the extra keys, nested models as
    such views, every other value the model's own (read-only: not copied)."""
    out = model.__dict__.copy()
    names, nested = _SHAPES.get(model.__class__) or _shape(model.__class__)
    for name in names - model.__pydantic_fields_set__:  # the unset fields (the set also names the extras)
        del out[name]
    for name in nested:
        value = out.get(name)
        if isinstance(value, CanonicalModel):
            out[name] = dump_view(value)
        elif value.__class__ is list:
            out[name] = [dump_view(item) if isinstance(item, CanonicalModel) else item for item in value]
    extra = model.__pydantic_extra__
    if extra:
        out.update(extra)
    return out
