"""``docs/platforms/<platform>.md``: one page per mapping table (``mappings/<platform>.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..mappings import FieldMap, Mapping, all_mappings

DOCS_DIR = Path("docs/platforms")


def _cell(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text.replace("|", "\\|").replace("\n", " ")


def _field_lines(mapping: Mapping) -> list[str]:
    lines: list[str] = []
    for level in ("card", "book", "entry", "chat", "message"):
        rows = mapping.fields_at(level)  # type: ignore[arg-type]
        if not rows:
            continue
        lines += [
            f"## {level.capitalize()} fields",
            "",
            "| native | canonical | type | default | notes |",
            "|---|---|---|---|---|",
        ]
        for f in rows:
            default = _cell(f.default) if f.has_default else ""
            canonical = f"`{f.canonical}`" if f.canonical else "(not mapped)"
            lines.append(f"| `{f.native}` | {canonical} | {_cell(f.type)} | {default} | {_cell(f.notes)} |")
        lines.append("")
    return lines


def _details(f: FieldMap) -> list[str]:
    """What the table knows beyond the name mapping, as short phrases (empty when nothing)."""
    out = []
    if f.order is not None:
        out.append(f"native position {f.order}")
    if f.required:
        out.append("required")
    if f.has_card_default:
        out.append(f"card import default `{_cell(json.dumps(f.card_default, ensure_ascii=False))}`")
    if f.values:
        out.append("values " + ", ".join(f"`{native}` = {_cell(name)}" for native, name in f.values.items()))
    if f.world is not None:
        out.append(f"world file: `{_cell(f.world)}`")
    if f.transform and f.transform != "copy":
        out.append(f"transform `{f.transform}`")
    return out + _app_details(f)


def _app_details(f: FieldMap) -> list[str]:
    """How the app's own code and interop's derived code use the field (the columns they are built from)."""
    out = []
    if f.has_app_default:
        out.append(f"new-entry template `{_cell(json.dumps(f.app_default))}`")
    if f.has_import_default:
        rank = "" if f.import_order is None else f" (read {f.import_order + 1}.)"
        out.append(f"card import fallback `{_cell(json.dumps(f.import_default, ensure_ascii=False))}`{rank}")
    if f.inspect_flag is not None:
        out.append("counted as a flag by `interop inspect`")
    if f.engine:
        out.append(f"activation engine reads it as `{f.engine}`")
    if f.model:
        out.append(f"canonical type `{f.model}`")
    if f.decorator:
        out.append("Risu decorator " + ", ".join(_decorator(d) for d in f.decorator))
    return out


def _decorator(spec: str) -> str:
    """``name=value`` (the decorator stands for that native value) or ``name`` (it carries the value)."""
    name, sep, value = spec.partition("=")
    return f"`@@{_cell(name)}` for `{_cell(value)}`" if sep else f"`@@{_cell(name)} <value>`"


def _detail_lines(mapping: Mapping) -> list[str]:
    """Order, required fields, card defaults, enums, world spellings and transforms, where a table has them."""
    rows = [(f, _details(f)) for f in mapping.fields]
    rows = [(f, d) for f, d in rows if d]
    if not rows:
        return []
    lines = ["## Field details", "", "| level | native | details |", "|---|---|---|"]
    lines += [f"| {f.level} | `{f.native}` | {'; '.join(d)} |" for f, d in rows]
    return [*lines, ""]


def _key_order_lines(mapping: Mapping) -> list[str]:
    if not mapping.key_order:
        return []
    lines = ["## Native key order", "", "| object | keys, in the app's order |", "|---|---|"]
    lines += [f"| {name} | {', '.join(f'`{k}`' for k in keys)} |" for name, keys in mapping.key_order.items()]
    return [*lines, ""]


def _stash_lines(mapping: Mapping) -> list[str]:
    if not mapping.stash_why:
        return []
    lines = ["## Why values are stashed", "", "| stash record | why |", "|---|---|"]
    lines += [f"| `{record}` | {_cell(why)} |" for record, why in mapping.stash_why.items()]
    return [*lines, ""]


def _target_lines(mapping: Mapping) -> list[str]:
    lines: list[str] = []
    for target, rules in mapping.targets.items():
        lines += [
            f"## Writing `{target}`: fate of canonical fields",
            "",
            "| canonical path | fate | detail |",
            "|---|---|---|",
        ]
        for rule in rules:
            lines.append(f"| `{rule.pattern}` | {rule.fate} | {_cell(rule.detail)} |")
        lines.append("")
    return lines


def render_platform_doc(mapping: Mapping) -> str:
    lines = [
        f"# {mapping.title}",
        "",
        f"<!-- generated from mappings/{mapping.platform}.json by `python -m interop.docs --write`; do not edit -->",
        "",
    ]
    if mapping.notes:
        lines += [mapping.notes, ""]
    lines += [f"Formats: {', '.join(f'`{f}`' for f in mapping.formats)}", ""]
    lines += _field_lines(mapping)
    lines += _detail_lines(mapping)
    lines += _key_order_lines(mapping)
    lines += _stash_lines(mapping)
    lines += _target_lines(mapping)
    return "\n".join(lines).rstrip() + "\n"


def rendered(docs_dir: Path = DOCS_DIR) -> dict[Path, str]:
    """Path (under ``docs_dir``) -> text, one page per mapping table."""
    return {docs_dir / f"{m.platform}.md": render_platform_doc(m) for m in all_mappings()}
