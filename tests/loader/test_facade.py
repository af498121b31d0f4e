"""The public façade: export, type markers, derivative declarations."""

from __future__ import annotations

import pytest

import gradc
from gradc import bool_, boolean, f32, f64, i32, i64


def test_export_bare_returns_function_unchanged() -> None:
    def f(x: f64) -> f64:
        return x + 1.0

    assert gradc.export(f) is f


def test_export_with_signature_returns_function_unchanged() -> None:
    def f(a, b):  # type: ignore[no-untyped-def]
        return a + b

    assert gradc.export("f64(f64, f64)")(f) is f
    assert gradc.export()(f) is f


def test_export_rejects_garbage() -> None:
    with pytest.raises(TypeError, match="signature string"):
        gradc.export(3)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="decorates a function"):
        gradc.export("f64()")(3)  # type: ignore[type-var]


@pytest.mark.parametrize(
    ("marker", "text"),
    [(f64, "f64"), (f32, "f32"), (i64, "i64"), (i32, "i32"), (boolean, "bool"), (bool_, "bool")],
)
def test_scalar_markers_print(marker: gradc.ScalarTypeMarker, text: str) -> None:
    assert repr(marker) == text
    assert marker.name == text


def test_array_markers() -> None:
    a1 = f64[:]
    assert isinstance(a1, gradc.ArrayTypeMarker)
    assert (a1.dtype, a1.ndim, a1.layout) == (f64, 1, "A")
    assert repr(a1) == "f64[:]"
    a2 = i32[:, :]
    assert (a2.dtype, a2.ndim) == (i32, 2)
    assert repr(a2) == "i32[:, :]"
    c = f64[:, ::1]
    assert c.layout == "C"
    assert repr(c) == "f64[:, ::1]"
    fortran = f64[::1, :]  # as the compiler reads it (compiler/frontend/annotations.py)
    assert fortran.layout == "F"
    assert repr(fortran) == "f64[::1, :]"
    assert f64[::1] == f64[::1] and f64[::1].layout == "C"  # one axis: C
    assert f64[:] == f64[:]
    assert hash(f64[:, :]) == hash(f64[:, :])
    assert f64[:] != f32[:]


@pytest.mark.parametrize(
    "bad", ["f64[0]", "f64[1:2]", "f64[::2]", "f64[::1, ::1]", "f64[:, ::1, :]", "f64[()]"]
)
def test_array_marker_errors(bad: str) -> None:
    with pytest.raises(TypeError):
        eval(bad, {"f64": f64})


def test_markers_work_as_annotations() -> None:
    def f(x: f64[:], n: i64) -> f64:
        return 0.0

    assert f.__annotations__ == {"x": "f64[:]", "n": "i64", "return": "f64"}  # lazy annotations


@pytest.mark.parametrize("decl", [gradc.grad, gradc.value_and_grad, gradc.jvp, gradc.vjp])
def test_derivatives_are_declarations_that_refuse_to_run(decl) -> None:  # type: ignore[no-untyped-def]
    def f(x: f64) -> f64:
        return x * x

    d = decl(f)
    assert isinstance(d, gradc.DerivativePlaceholder)
    assert d.fn is f
    assert "declaration" in repr(d)
    with pytest.raises(NotImplementedError, match="gradc build"):
        d(1.0)
    with pytest.raises(NotImplementedError, match="gradc build"):  # a kernel's launch form
        d[4, 256](1.0)


def test_markers_evaluate_as_eager_annotations() -> None:
    ns: dict[str, object] = {"f64": f64, "i64": i64}
    src = "def f(x: f64[:, :], n: i64) -> f64:\n    return 0.0\n"
    exec(compile(src, "<test>", "exec", dont_inherit=True), ns)
    ann = ns["f"].__annotations__  # type: ignore[attr-defined]
    assert ann["x"] == f64[:, :]
    assert ann["n"] is i64
