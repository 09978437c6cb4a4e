"""Renders docs/fidelity.md from the mapping tables: the platform matrix and where stashes go.

``python -m interop.docs --write`` rewrites the file (with every other generated document);
``--check`` exits 1 when it is out of date (run in CI and by tests/fidelity/test_matrix_doc.py).
Everything platform-specific in the document comes from ``mappings/*.json``, including the
short paragraph per platform saying why its stash survives (each table's ``stash_why``).
"""

from __future__ import annotations

from pathlib import Path

from ..mappings import FATES, Mapping, TargetRule, all_mappings
from .apps import docs_section
from .report import SCHEMA_VERSION
from .rules import RuleBook

DEFAULT_OUTPUT = Path("docs/fidelity.md")

INTRO = """\
# Fidelity: what each conversion keeps, translates, stashes, approximates or loses

<!-- generated from mappings/*.json by `python -m interop.docs --write`; do not edit -->

`interop convert FILE --to TARGET` reports the fate of every field of the source:

| fate | meaning |
|---|---|
| `kept` | same value, same meaning in the target |
| `not_applicable` | "not applicable": no place in the target's kind (a card's fields in a lorebook); not a loss |
| `kept_default` | "kept (default)": not written, but the target applies that value anyway (world `use_regex: false`) |
| `translated` | same behaviour, different form (e.g. SillyTavern probability -> Risu `@@probability`) |
| `stashed` | carried where the real target application keeps but ignores it; restored on the way back |
| `approximated` | the target behaves differently (the report says how) |
| `lost` | gone (the report says why) |

## How the report is computed

The report is computed from the data, not from a list:

1. The source is read into the canonical model and flattened into fields: `root.*` (root-level
   keys of a card besides `spec`/`spec_version`/`data`), `card.*` (`data.*` except the book; one
   field per `card.assets[i]`), `book.*` (the lorebook except its entries) and
   `entry[i].*` (each entry). Dicts are walked down to their leaves; a list is one field (a
   key list is one field). Cards are compared as CCv3, so a downgrade stash is restored
   first; fields a version upgrade filled with defaults were not in the file and are not
   fields. `spec` and `spec_version` name the format and are not fields.
2. The target is written, then read back with the target's own reader, and the two
   canonical views are compared field by field (a type-strict check per section and per
   entry first; DeepDiff describes the fields that differ). An empty object
   (`extensions: {}`) that comes back with keys in it is still there: the keys are additions.
3. A field that did not come back, or came back different, is `lost`, or `approximated`
   when the target's mapping table says so. A field that came back equal takes the fate of
   the most specific rule of the table (`*` one segment, `**` the rest), `kept` when no rule
   matches. A rule saying `approximated` or `lost` wins even when the data survived in the
   file: the table records what the real application does with it. Exception: when the
   source comes from the target's own platform (Agnai -> Agnai, Risu -> Risu module), the
   same application reads the field before and after, so an `approximated` field that comes
   back is `kept`, and the hazards of step 4 do not apply. A rule may say `not_applicable` (a
   card field in a lorebook-kind target; for a card source only: a NovelAI scenario's text is
   its own and stays `lost`), or name the `default` the target applies when the field is
   absent: a source value equal to it that does not come back is `kept_default`. Both are
   counted apart from `lost` and never make `has_losses` (or `--strict`) fail.
4. The target platform's hazards (`Platform.hazards`, plus any `register_hook` checks) add
   what the data cannot show (e.g. `agnai_key_hazards`: keys Agnai would mangle make
   `entry[i].keys` approximated, or lost when they cannot match at all).
   A hazard only makes a fate worse.
5. Container parts count too: the picture (`image`, compared by its pixel chunks), each
   embedded asset file (`asset["<uri>"]`, by bytes; moved to another URI = `translated`)
   and each opaque member (`member["module.risum"]`): `lost` when the target does not carry
   them. Rules may name them (`image`, `asset.*`, `member.*`).
6. With `--behaviour CHATS` (convert, roundtrip), the source book runs on the source
   platform's activation profile and the output on the target's (`interop.engine`), over
   the same chats; each entry that fires differently is one more item,
   `behaviour["<entry>"]`, `approximated`, saying in which chat and turn and why on each side.
7. Fidelity is judged at the target application (`interop.fidelity.apps`, section "What each
   app loads" below): the output bytes are loaded the way the app's own import code loads them
   and compared, entry setting by entry setting, with the source's settings in that app's terms.
   Each difference is a finding in `report.apps` (the app, the import path taken, settings
   compared, the differences); it makes the field it names `approximated` or `lost`, and a
   difference on a field the source lacks (an app default) counts as well.
8. Fields the output has and the source lacked (the V3-required entry fields, an empty card's
   required fields, ...) are listed with their values in `report.added`
   (`entry.enabled = true (18 entries)`): they are not source fields, so they have no item.
   Every card writer adds them (`card_for_target.card_for`), so each output passes `validate --strict`,
   with the value the app would apply: SillyTavern's for `ccv3`, `png`, `charx`, `ccv2`,
   `character_book`, `lorebook_v3` (with ST's flat entry keys); RisuAI's own export values
   for `risu-charx` (`createBaseV3`: `enabled: true`, `insertion_order`, `use_regex: false`),
   in card.json and the module; Agnai's for `agnai-card` (`nativeToMemoryEntry`: `enabled`,
   `insertion_order` = weight). These two get no ST flat keys: Risu loads the module's
   entries, Agnai drops entry `extensions`.

Every source field gets exactly one item. `report.has_losses` is true when any item is
`approximated` or `lost`, or an app loads a setting differently; `--strict` then exits 1.
`--report FILE` writes the machine form, described by `docs/fidelity-report.schema.json`
(schema version {schema_version}).

## From Python

```python
from interop.api import read
from interop.fidelity import fidelity_report

doc = read("card.png")
report = fidelity_report(doc, "sillytavern-world")  # writes the target itself; or pass the output bytes
report.counts        # e.g. {"kept": 70, "translated": 3, "stashed": 9, "approximated": 1, "lost": 4}
report.has_losses    # any approximated or lost
for item in report.items:
    print(item.path, item.fate, item.detail, item.rule)
report.to_json()     # the --report form, with "schema_version"
```

`fidelity_report(doc, target, data, chats=[...])` adds behaviour items (`interop.engine`
chats). A platform states what the data cannot show as `Platform.hazards`; a check
outside the platform package can add more with `interop.fidelity.register_hook(platform, hook)`:
`hook(source_doc, target_format, output_doc)` returns `Finding(path, fate, detail)`s, which can
only make a fate worse.
`interop.fidelity.roundtrip.roundtrip(doc, target)` and
`interop.fidelity.entrydiff.diff_documents(a, b)` are what the two commands below print.

One view of a report (`interop.fidelity.render`: `report_view`, `leg_view`, `diff_view`) feeds
the CLI, the API (`view` in the answers of `/convert`, `/roundtrip`, `/diff`) and the web page
(`static/report.js`): a one-line verdict first, then the fields grouped by rule (one line per
rule with its count and the entries it affects, named by comment or title, else keys, else
`#index`), what each target app loads, the fields the output added and the warnings. Text is
wrapped, never cut; `--details` lists every field, value and entry; `--json` prints the data.

## Round trips and diffs

* `interop roundtrip FILE [--via TARGET ...]` converts to each target (default: every writable
  format) and back to the source format, compares the result with the source through the
  canonical model and prints its differences grouped: by the rule that predicted them, else by
  field. Differences that the conversion's report predicted (`approximated`, `lost`,
  `not_applicable`, `kept_default`) are expected. A field it called `kept`, `translated` or
  `stashed` is a promise that it comes back: if it does not, it is marked `!` (with what the
  report of the way back says) and the command exits 1. Fields a target only adds (its
  defaults) are listed but do not fail. A card without a lorebook is skipped for lorebook
  targets; when the source format cannot be written from the target, the target read back is
  compared instead.
* `interop diff A B` compares two files of any formats through the canonical model: card and
  book fields first, then entries matched by `id`, then by equal keys and content, then by
  keys alone or content alone; unmatched entries are listed as only in A or B. Entry changes
  are grouped by field, naming the entries (`--details`: entry by entry). With B's bytes, what
  B's app loads is compared with A's settings entry by entry, paired as the body pairs them.
  Exit 1 when they differ.
"""


def _level_order(row: str) -> tuple[int, str]:
    level = row.split(".", 1)[0]
    order = ("root", "card", "book", "entry", "image", "asset", "member")
    return (order.index(level) if level in order else len(order), level)


def matrix_rows(mappings: list[Mapping]) -> list[str]:
    """Canonical fields (from the ccv3 table) and every pattern any target rule names."""
    fields: list[str] = []
    for mapping in mappings:
        for f in mapping.fields:
            if mapping.platform == "ccv3" and f.canonical:
                fields.append(f"{f.level}.{f.canonical}")
    patterns = [rule.pattern for m in mappings for rules in m.targets.values() for rule in rules]
    seen = dict.fromkeys([*fields, *patterns])
    field_rank = {tuple(name.split(".")[:2]): i for i, name in enumerate(fields)}

    def key(row: str) -> tuple[int, str, int, str]:
        level, _ = _level_order(row)
        parts = row.split(".")
        return (level, parts[0], field_rank.get(tuple(parts[:2]), len(field_rank)), row)

    return sorted(seen, key=key)


def _targets(mappings: list[Mapping]) -> list[tuple[str, Mapping]]:
    return [(target, m) for m in mappings for target in m.targets]


def _cell(rule: TargetRule | None) -> str:
    return rule.fate if rule is not None else "(kept)"


def _text(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def render(mappings: list[Mapping] | None = None) -> str:
    mappings = mappings if mappings is not None else all_mappings()
    targets = _targets(mappings)
    books = {target: RuleBook(target) for target, _ in targets}
    lines = [INTRO.replace("{schema_version}", SCHEMA_VERSION)]
    lines += [
        "## The matrix",
        "",
        "Rows are canonical fields and the patterns the tables name; columns are target formats; a cell is the "
        "fate the target's table gives that row (the most specific matching rule). `(kept)` means no rule: the "
        "field is kept if it survives the round trip, lost otherwise. The `how`/`where`/`why` of every rule is "
        "in `docs/platforms/<platform>.md`. A writable format that no table describes as a target has no "
        "column: every field that comes back is kept, the rest lost.",
        "",
    ]
    by_platform: dict[str, list[str]] = {}
    for target, mapping in targets:
        by_platform.setdefault(mapping.platform, []).append(target)
    lines.append(
        "Targets by platform: "
        + "; ".join(f"{p}: {', '.join(f'`{t}`' for t in ts)}" for p, ts in by_platform.items())
        + "."
    )
    lines.append("")
    lines.append("| field | " + " | ".join(f"`{t}`" for t, _ in targets) + " |")
    lines.append("|---|" + "---|" * len(targets))
    for row in matrix_rows(mappings):
        segments = tuple(row.split("."))
        cells = [_cell(books[t].rule(segments)) for t, _ in targets]
        lines.append(f"| `{row}` | " + " | ".join(cells) + " |")
    lines += ["", "Totals of rules per fate and target:", ""]
    lines.append("| target | " + " | ".join(FATES) + " |")
    lines.append("|---|" + "---|" * len(FATES))
    for target, mapping in targets:
        rules = mapping.targets[target]
        lines.append(f"| `{target}` | " + " | ".join(str(sum(r.fate == f for r in rules)) for f in FATES) + " |")
    lines += ["", *docs_section()]
    lines += ["", "## Where stashes go, and why they survive there", ""]
    for mapping in mappings:
        lines += [f"### {mapping.title} (`{mapping.platform}`)", ""]
        why = mapping.stash_why.get(mapping.platform)
        if why:
            lines += [why, ""]
        for target in mapping.targets:
            stashed = [r for r in mapping.targets[target] if r.fate == "stashed"]
            if not stashed:
                lines += [f"* `{target}`: no stash.", ""]
                continue
            lines.append(f"* `{target}`:")
            for rule in stashed:
                where = f"`{_text(rule.where)}`" if rule.where else "(no place given)"
                reason = f" ({_text(rule.why)})" if rule.why else ""
                lines.append(f"  * `{rule.pattern}` -> {where}{reason}")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
