"""The printer quotes strings as ``json.dumps`` does, without importing json."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from gradc.compiler.ir.printer import _quoted


@given(st.text())
def test_quoted_is_json_dumps(text: str) -> None:
    assert _quoted(text) == json.dumps(text)


def test_quoted_of_other_values_is_json_dumps() -> None:
    class Name(str):
        pass

    for value in (None, 3, Name("x\u00e9")):
        assert _quoted(value) == json.dumps(value)
