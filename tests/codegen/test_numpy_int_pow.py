"""``**`` of NumPy integers (NEP 50's strong operands, compiler/infer/weak.py): a negative
exponent raises NumPy's ValueError, ``0 ** -n`` included, where the same code on Python
ints raises gradc's (CPython would return a float). Outcomes equal NumPy 2 and CPython
running the same source (fuzz finding, seed 821026)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

SOURCE = """\
import gradc
import numpy as np
from gradc import i32, i64


@gradc.export
def clipped(s: i64) -> i64:
    return np.maximum(s, 2) ** s


@gradc.export
def element(a: i64[:], k: i64) -> i64:
    return a[0] ** k


@gradc.export
def by_element(k: i64, a: i32[:]) -> i64:
    return k ** a[0]


@gradc.export
def python_ints(s: i64, k: i64) -> i64:
    return s ** k
"""

CASES = [
    ("clipped", (-3,)),
    ("clipped", (3,)),
    ("element", (np.array([0]), -1)),
    ("element", (np.array([3]), -2)),
    ("element", (np.array([3]), 5)),
    ("by_element", (0, np.array([-1], dtype=np.int32))),
    ("by_element", (7, np.array([2], dtype=np.int32))),
    ("python_ints", (0, -1)),
    ("python_ints", (5, 3)),
]


def _outcome(call: Callable[[], Any]) -> tuple[str, str]:
    try:
        return ("value", repr(int(call())))
    except (ValueError, ZeroDivisionError) as e:
        return (type(e).__name__, str(e))


@pytest.mark.parametrize(("name", "args"), CASES, ids=lambda c: str(c))
def test_same_outcome_as_numpy(
    source_lib: Any, source_plain: dict[str, Any], name: str, args: tuple
) -> None:
    assert _outcome(lambda: getattr(source_lib, name)(*args)) == _outcome(
        lambda: source_plain[name](*args)
    )


def test_python_negative_exponent_keeps_gradc_message(source_lib: Any) -> None:
    """CPython's ``5 ** -1`` is a float, which an ``i64`` result cannot hold."""
    with pytest.raises(ValueError, match=r"^negative exponent in integer power"):
        source_lib.python_ints(5, -1)
