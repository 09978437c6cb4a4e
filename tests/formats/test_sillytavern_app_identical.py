"""SillyTavern's verdict skips settings that came back identical; anything else is compared one by one."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from interop.appmodel.verdict import AppVerdict
from interop.formats.sillytavern import app_load as st
from interop.formats.sillytavern import app_model as sillytavern_check


def _entry(**changes: Any) -> dict[str, Any]:
    return {**st.TEMPLATE, "uid": 0, "key": ["dock"], "content": "The docks.", "order": 100, **changes}


def _verdict(want: dict[str, Any], got: dict[str, Any]) -> AppVerdict:
    verdict = AppVerdict(st.APP)
    sillytavern_check._compare_entry(0, want, got, {"keys": ["dock"]}, "JSON", verdict)
    return verdict


def test_identical_settings_are_counted_and_not_found() -> None:
    verdict = _verdict(_entry(), copy.deepcopy(_entry()))
    assert verdict.compared == len(sillytavern_check._NAMES) and verdict.differing == 0 and not verdict.findings


@pytest.mark.parametrize(
    ("want", "got"),
    [
        ({"selective": True}, {"selective": 1}),  # equal in Python, not to SillyTavern
        ({"key": ["dock", 1]}, {"key": ["dock", True]}),  # the same, one level down
        ({"order": 100}, {"order": 50}),
    ],
)
def test_settings_equal_only_in_python_are_still_compared(want: dict[str, Any], got: dict[str, Any]) -> None:
    verdict = _verdict(_entry(**want), _entry(**got))
    assert verdict.compared == len(sillytavern_check._NAMES)
    assert verdict.differing == 1 and len(verdict.findings) == 1
