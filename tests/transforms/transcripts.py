"""Transcript cases: conversions written as markdown, for people who know the apps, not Python.

Model: pandoc's ``test/command/*.md`` (one markdown file holds the command, its input and
what it must print). A file in ``tests/transforms/cases/`` holds any number of cases; each
starts with a ``## title`` and has these fenced blocks, in this order (the fence's info
string names the block)::

    ## a whole-word setting becomes @@match_full_word

    ```command
    interop convert --from sillytavern-world --to risu-lorebook
    ```

    ```input
    {"entries": {"0": {"uid": 0, "key": ["bell"], "content": "It rings.", "matchWholeWords": true}}}
    ```

    ```output
    {"data": [{"content": "@@match_full_word\\nIt rings."}]}
    ```

    ```report
    translated entry[0].extensions.sillytavern.entry.match_whole_words
    ```

* ``command``: an ``interop convert`` command line without the file names: the case's input
  is written to a file and the command runs on it as ``interop convert INPUT -o OUTPUT --report
  REPORT ...`` (in-process, through the real command line). Several lines are steps: each
  converts the previous step's output; ``output`` and ``report`` check the last step.
* ``input``: the file the app exported, as text.
* ``output`` (optional): the fields of the converted file to check, as JSON. An object names
  only the keys it checks; a list must have as many items as the output's, each checked the same
  way; a value must be equal and of the same JSON type (``1`` is not ``true``); the string
  ``"<absent>"`` says the key must not be there.
* ``report`` (optional): fidelity report items (docs/fidelity.md), one ``fate path`` line each
  (what ``interop convert --details`` lists; an unknown fate is refused). For every fate the
  block names, the report's items of that fate must be exactly its lines, in the report's order;
  ``fate -`` says there is none of it (``lost -``: nothing lost). Fates the block does not name are not checked.

A case must check something: an ``output`` with at least one value, or a ``report``.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interop.mappings import FATES

CASES_DIR = Path(__file__).parent / "cases"
ABSENT = "<absent>"
NONE = "-"
BLOCKS = ("command", "input", "output", "report")
_FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Case:
    file: str
    title: str
    steps: tuple[tuple[str, ...], ...]
    input: str
    output: Any = None
    has_output: bool = False
    report: tuple[str, ...] | None = None

    @property
    def id(self) -> str:
        return f"{self.file}: {self.title}"


class TranscriptError(ValueError):
    """A case file that does not follow the format (named with the file and the case)."""


def _case(file: str, title: str, body: str) -> Case:
    blocks: dict[str, str] = {}
    for match in _FENCE.finditer(body):
        name = match.group(1)
        if name not in BLOCKS or name in blocks:
            raise TranscriptError(f"{file}: {title}: unexpected or repeated block {name!r}")
        blocks[name] = match.group(2)
    for required in ("command", "input"):
        if required not in blocks:
            raise TranscriptError(f"{file}: {title}: no {required!r} block")
    steps = tuple(tuple(shlex.split(line)) for line in blocks["command"].splitlines() if line.strip())
    if not steps or any(words[:2] != ("interop", "convert") for words in steps):
        raise TranscriptError(f"{file}: {title}: each command line must be `interop convert ...`")
    output = json.loads(blocks["output"]) if "output" in blocks else None
    report = None
    if "report" in blocks:
        report = tuple(line.strip() for line in blocks["report"].splitlines() if line.strip())
        unknown = [line.split()[0] for line in report if line.split()[0] not in FATES]
        if unknown:  # a misspelled fate matches no report item: the line would check nothing
            raise TranscriptError(f"{file}: {title}: unknown fate {unknown[0]!r} (fates: {', '.join(FATES)})")
    if not report and not ("output" in blocks and _checks_a_value(output)):
        raise TranscriptError(f"{file}: {title}: the case checks nothing (no output value, no report line)")
    return Case(file, title, tuple(words[2:] for words in steps), blocks["input"], output, "output" in blocks, report)


def _checks_a_value(expected: Any) -> bool:
    """An empty object checks nothing; a list checks its length, a value itself."""
    if isinstance(expected, dict):
        return any(_checks_a_value(v) for v in expected.values())
    return True


def read_cases(path: Path) -> list[Case]:
    text = path.read_text(encoding="utf-8")
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return [_case(path.name, title.strip(), body) for title, body in zip(parts[1::2], parts[2::2], strict=True)]


def all_cases(folder: Path = CASES_DIR) -> list[Case]:
    return [case for path in sorted(folder.glob("*.md")) for case in read_cases(path)]


def mismatches(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Where ``actual`` differs from the partial ``expected`` (the ``output`` block's rules)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where or '.'}: expected an object, got {json.dumps(actual)}"]
        out: list[str] = []
        for key, value in expected.items():
            if value == ABSENT:
                out += [f"{where}.{key}: expected absent, got {json.dumps(actual[key])}"] if key in actual else []
            elif key not in actual:
                out.append(f"{where}.{key}: missing")
            else:
                out += mismatches(value, actual[key], f"{where}.{key}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where or '.'}: expected a list of {len(expected)}, got {json.dumps(actual)}"]
        pairs = enumerate(zip(expected, actual, strict=True))
        return [m for i, (e, a) in pairs for m in mismatches(e, a, f"{where}[{i}]")]
    if json.dumps(expected) != json.dumps(actual):
        return [f"{where or '.'}: expected {json.dumps(expected)}, got {json.dumps(actual)}"]
    return []


def report_mismatch(expected: tuple[str, ...], report: dict[str, Any]) -> str:
    """Empty when, for every fate ``expected`` names, the report's items of that fate are its lines."""
    wanted: dict[str, list[str]] = {}
    for line in expected:
        fate, _, path = line.partition(" ")
        wanted.setdefault(fate, [])
        if path.strip() != NONE:
            wanted[fate].append(f"{fate} {path.strip()}")
    got = {fate: [f"{fate} {i['path']}" for i in report["items"] if i["fate"] == fate] for fate in wanted}
    if got == wanted:
        return ""
    wrong = [fate for fate in wanted if got[fate] != wanted[fate]]
    return "\n".join(f"{fate}: expected {wanted[fate]}, got {got[fate]}" for fate in wrong)
