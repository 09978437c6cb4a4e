"""Base class and the lenient field type shared by every canonical model.

Real cards break their own spec all the time (string ids, numbers as strings,
``null`` lists). The canonical model must keep such values exactly as read,
so every scalar field is declared ``Lenient[T]``: a value of type ``T`` is
validated strictly (no coercion: ``"5"`` stays ``"5"``, ``5`` stays ``5``),
and anything else is kept verbatim instead of failing. ``type_issues()`` lists
the off-type values for ``interop validate``.

Round-trip rules (``dump()``):
- only keys present in the input are written back (``exclude_unset``), so no
  defaults appear and an explicit ``null`` survives;
- unknown keys are kept at every level (``extra="allow"``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, TypeAdapter, ValidationError
from pydantic_core import CoreSchema, core_schema

T = TypeVar("T")


class _Containers:
    """A lenient list or dict field is validated as "a list (dict): its shallow copy, else the value"
    instead of ``list[str]``'s per-item checks, which are half the cost of validating an entry;
    all in pydantic-core (``isinstance``, then the C ``list.copy``/``dict.copy``). The model holds the
    same value as before (a copy of a container, like the typed validation made of a well-typed
    one); ``type_issues`` still checks items against the declared type, and the JSON schema is the
    declared type's."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        schema = handler(source)
        kind = get_origin(get_args(source)[0]) if get_origin(source) is Union else None
        if kind is not list and kind is not dict:
            return schema
        copied = core_schema.chain_schema(
            [core_schema.is_instance_schema(kind), core_schema.no_info_plain_validator_function(kind.copy)]
        )
        return core_schema.union_schema(
            [copied, core_schema.any_schema()],
            mode="left_to_right",
            metadata={"pydantic_js_annotation_functions": [lambda _schema, js: js(schema)]},
        )


# Union[T, Any] tried left to right in strict mode: T when the value really is
# a T, the raw value otherwise. Validation stays inside pydantic-core (fast).
Lenient = Annotated[Union[T, Any], Field(union_mode="left_to_right"), _Containers()]  # noqa: UP007


class CanonicalModel(BaseModel):
    """Strictly typed where the value fits, verbatim where it does not, unknown keys kept."""

    model_config = ConfigDict(
        extra="allow",
        strict=True,
        validate_assignment=False,
        populate_by_name=True,
        ser_json_inf_nan="constants",
    )

    def dump(self) -> dict[str, Any]:
        """The JSON-ready dict: only keys that were read or set, unknown keys included."""
        return self.model_dump(mode="python", exclude_unset=True, round_trip=True)

    def has(self, field: str) -> bool:
        """Was ``field`` present in the input (or set since)?"""
        return field in self.model_fields_set or (self.model_extra is not None and field in self.model_extra)

    def get_extra(self, key: str, default: Any = None) -> Any:
        return (self.model_extra or {}).get(key, default)

    def type_issues(self, path: str = "") -> Iterator[tuple[str, str]]:
        """Yield ``(json_path, message)`` for every field whose value is not of its declared type."""
        for name, info in type(self).model_fields.items():
            if name not in self.model_fields_set:
                continue
            value = getattr(self, name)
            where = f"{path}.{name}" if path else name
            if isinstance(value, CanonicalModel):
                yield from value.type_issues(where)
                continue
            if isinstance(value, list) and value and all(isinstance(v, CanonicalModel) for v in value):
                for i, item in enumerate(value):
                    yield from item.type_issues(f"{where}[{i}]")
                continue
            declared = _declared_type(info.annotation)
            if declared is None or value is None:
                continue
            try:
                _adapter(declared).validate_python(value, strict=True)
            except ValidationError:
                yield where, f"expected {_type_name(declared)}, found {type(value).__name__}"


def _declared_type(annotation: Any) -> Any:
    """The T of Lenient[T] (possibly inside Optional); None when the field is not lenient."""
    args = get_args(annotation)
    if get_origin(annotation) is Union and args and args[-1] is Any:
        inner = args[:-1]
        return inner[0] if len(inner) == 1 else Union[inner]  # noqa: UP007
    return None


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(tp: Any) -> TypeAdapter[Any]:
    key = repr(tp)
    if key not in _ADAPTERS:
        _ADAPTERS[key] = TypeAdapter(tp)
    return _ADAPTERS[key]


def _type_name(tp: Any) -> str:
    if get_origin(tp) is Union:
        return " | ".join(_type_name(arg) for arg in get_args(tp))
    return repr(tp).replace("typing.", "") if get_args(tp) else getattr(tp, "__name__", repr(tp))


def as_str_list(value: Any) -> list[str]:
    """A lenient list-of-strings field as a list of strings, for code that needs one.

    Off-type values are read the way the platforms do: a string becomes a
    comma-split list, non-strings are stringified, ``None`` is empty.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        return [v if isinstance(v, str) else str(v) for v in value if v is not None]
    return [str(value)]


def as_bool(value: Any, default: bool) -> bool:
    """A lenient boolean field as a bool (``"true"``/``1`` accepted, as JavaScript apps do)."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in {"true", "1", "yes", "on"}
    if isinstance(value, int | float):
        return value != 0
    return default


def as_number(value: Any, default: float | int | None = None) -> float | int | None:
    """A lenient numeric field as a number, or ``default`` when it is not one."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return default
        return int(number) if number.is_integer() else number
    return default
