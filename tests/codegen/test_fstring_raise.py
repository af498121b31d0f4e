"""f-string raise messages (tests/codegen/corpus/fstring_raise.py) against CPython: the
same exception type and exactly the same message, for every input drawn. The full
differential run of the module is tests/codegen/test_differential.py's (types only).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

CORPUS = Path(__file__).parent / "corpus" / "fstring_raise.py"


def _plain() -> Any:
    spec = importlib.util.spec_from_file_location("gradc_fstring_raise", CORPUS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PLAIN = _plain()
I32 = st.integers(-(2**31), 2**31 - 1)
I64 = st.integers(-(2**63), 2**63 - 1)
ARGS = {
    "checked_index": st.tuples(st.integers(-20, 20) | I64, st.integers(0, 10) | I64),
    "three_fields": st.tuples(
        st.integers(-1000, 1000) | I32, st.integers(-1000, 1000) | I32, st.floats(-100, 100)
    ),
    "bool_fields": st.tuples(st.integers(-5, 5), st.booleans()),
    "float_fields": st.tuples(st.floats(allow_nan=True), st.integers(-10, 10)),
}


def _outcome(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, ...]:
    try:
        return ("ok", fn(*args))
    except (ValueError, IndexError, OverflowError, RuntimeError, AssertionError) as exc:
        return ("raise", type(exc), str(exc))


@pytest.mark.parametrize("name", sorted(ARGS))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_messages_match_cpython(
    compile_module: Callable[[Path], Any], name: str, data: Any
) -> None:
    args = data.draw(ARGS[name])
    expected = _outcome(getattr(PLAIN, name), args)
    actual = _outcome(getattr(compile_module(CORPUS), name), args)
    assert repr(actual) == repr(expected)  # repr: NaN equals NaN, 1 differs from 1.0
