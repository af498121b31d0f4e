"""Exports with default parameter values (tests/codegen/corpus/export_defaults.py), called
the ways Python allows: omitting trailing arguments, passing some by keyword, out of
order. The plain Python function is the oracle; the full calls are the differential
corpus's (tests/codegen/test_differential.py).
"""

from __future__ import annotations

import importlib.util
import inspect
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

CORPUS = Path(__file__).parents[1] / "codegen" / "corpus" / "export_defaults.py"


def _plain() -> Any:
    spec = importlib.util.spec_from_file_location("gradc_export_defaults", CORPUS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PLAIN = _plain()
FLOATS = st.floats(-50, 50, allow_nan=False)

#: export -> (required argument strategies, defaulted argument strategies)
ARGS: dict[str, tuple[list[Any], list[Any]]] = {
    "iterate": ([FLOATS], [st.integers(0, 12), FLOATS, FLOATS]),
    "shift": ([st.integers(-100, 100)], [st.integers(-100, 100), st.booleans()]),
    "clamp": ([FLOATS], [FLOATS, FLOATS]),
}


def _same(expected: Any, actual: Any) -> None:
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    assert type(actual) is type(expected) or isinstance(expected, int | float)
    assert actual == expected or (math.isnan(expected) and math.isnan(actual))
    assert float(actual) == float(expected)


@pytest.mark.parametrize("name", sorted(ARGS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_calls_omitting_defaults(
    compile_module: Callable[[Path], Any], name: str, data: Any
) -> None:
    compiled = getattr(compile_module(CORPUS), name)
    plain = getattr(PLAIN, name)
    names = list(inspect.signature(plain).parameters)
    required, optional = ARGS[name]
    args = [data.draw(s) for s in required]
    given_optional = [data.draw(s) for s in optional]
    npos = data.draw(st.integers(0, len(optional)))  # defaulted ones passed positionally
    keyword = {
        names[len(required) + i]: v
        for i, v in enumerate(given_optional)
        if i >= npos and data.draw(st.booleans())
    }
    call_args = args + given_optional[:npos]
    _same(plain(*call_args, **keyword), compiled(*call_args, **keyword))


def test_signature_text_shows_defaults(compile_module: Callable[[Path], Any]) -> None:
    lib = compile_module(CORPUS)
    assert "n: i64 = 3, h: f64 = 0.25, damp: f64 = 1.0" in lib.iterate.__doc__
    with pytest.raises(TypeError, match=r"missing 1 required argument: 'x'"):
        lib.iterate(n=2)
    with pytest.raises(TypeError, match=r"multiple values for argument 'n'"):
        lib.iterate(1.0, 2, n=3)


DERIVATIVE_SOURCE = """
import gradc
from gradc import f64, i64

@gradc.export
def f(x: f64, n: i64 = 3, s: f64 = 1.5) -> f64:
    r = x
    for _ in range(n):
        r = r * s + x
    return r

d_f = gradc.grad(f, wrt=("x", "s"))
t_f = gradc.jvp(f, wrt=("x",))
"""


def test_grad_keeps_the_defaults_jvp_drops_them(
    compile_module: Callable[[Path], Any], tmp_path: Path
) -> None:
    """A ``grad`` export has its primal's parameters, so its defaults; a ``jvp`` export
    ends with tangents, so a call must pass every argument."""
    path = tmp_path / "defaulted_derivatives.py"
    path.write_text(DERIVATIVE_SOURCE)
    lib = compile_module(path)
    assert lib.d_f(0.5) == lib.d_f(0.5, 3, 1.5) == lib.d_f(0.5, s=1.5)
    assert lib.d_f(0.5, 2) != lib.d_f(0.5)
    assert "n: i64 = 3, s: f64 = 1.5" in lib.d_f.__doc__
    assert lib.t_f(0.5, 3, 1.5, 1.0) == lib.t_f(x=0.5, n=3, s=1.5, d_x=1.0)
    with pytest.raises(TypeError, match="missing 3 required arguments"):
        lib.t_f(0.5)
