"""The fast call path: CPython METH_FASTCALL wrappers (compiler/codegen/pywrapper.py) linked
by the loader, checked against the ctypes path on the same exports."""

from __future__ import annotations

import dataclasses
import gc
import math
import subprocess
import sys
import textwrap
import timeit
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gradc
from gradc.artifacts.abi import wrapper_symbol
from gradc.artifacts.abi.symbols import RUNTIME_DECREF
from gradc.artifacts.loader import linking, numpy_api
from gradc.artifacts.loader.cpu import FastExport, Library
from gradc.artifacts.store import read_manifest, write_artifact
from gradc.compiler.codegen import pywrapper
from gradc.compiler.codegen.relocatable import relocations
from gradc.compiler.options import CompilerOptions

SOURCE = textwrap.dedent(
    """
    import numpy as np

    import gradc
    from gradc import boolean, f32, f64, i32, i64


    @gradc.export
    def add(a: f64, b: f64) -> f64:
        return a + b


    @gradc.export
    def div(a: f64, b: f64) -> f64:
        return a / b


    @gradc.export
    def mix(x: f32, n: i32, flag: boolean, k: i64) -> tuple[f32, tuple[i32, boolean], i64, f64]:
        return x * 2.0, (n + 1, not flag), k * 3, 0.5


    @gradc.export
    def check(k: i64) -> None:
        assert k > 0


    @gradc.export
    def truth(k: i64) -> boolean:
        return k > 0


    @gradc.export
    def answer() -> i64:
        return 42


    @gradc.export
    def total(a: f64[:]) -> f64:
        s = 0.0
        for i in range(len(a)):
            s += a[i]
        return s
    """
)


def _with_wrappers(build: Any) -> Any:
    """``build`` with a wrapper object per entry (until the driver adds them itself)."""
    entries = []
    for e in build.entries:
        if getattr(e, "wrapper_object", None) is None:
            code = pywrapper.emit_wrapper(e.signature, e.symbol, CompilerOptions())
            e = _WithWrapper(e, code)
        entries.append(e)
    return dataclasses.replace(build, entries=tuple(entries))


class _WithWrapper:
    def __init__(self, entry: Any, code: bytes) -> None:
        self._entry = entry
        self.wrapper_object = code

    def __getattr__(self, name: str) -> Any:
        return getattr(self._entry, name)


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gradc.compiler.driver import build_module

    folder = tmp_path_factory.mktemp("fast")
    source = folder / "fastmod.py"
    source.write_text(SOURCE)
    out = folder / "fastmod.gradc"
    write_artifact(out, _with_wrappers(build_module(source, CompilerOptions())))
    return out


@pytest.fixture(scope="module")
def lib(artifact: Path) -> Library:
    return gradc.load(artifact)


def test_manifest_and_symbols(artifact: Path, lib: Library) -> None:
    m = read_manifest(artifact)
    for e in m.entries:  # arrays too (tests/artifacts/test_fastcall_arrays.py)
        assert e.wrapper is not None
        assert e.wrapper.symbol == wrapper_symbol(e.symbol)
        assert e.wrapper.symbol == pywrapper.wrapper_symbol(e.symbol)
        assert lib.is_fast(e.name)
        code = (artifact / e.wrapper.object).read_bytes()
        undefined = {r.symbol for r in relocations(code) if not r.defined and r.symbol}
        assert undefined <= pywrapper.PYTHON_API_SYMBOLS | {e.symbol}


def test_python_api_resolves() -> None:
    """Every CPython symbol a wrapper may leave undefined has an address in this process."""
    api = linking._python_api()
    numpy = numpy_api.numpy_symbols(runtime=object())  # type: ignore[arg-type]
    assert set(api) | set(numpy) | {RUNTIME_DECREF} == pywrapper.PYTHON_API_SYMBOLS
    assert all(api.values()) and all(numpy.values())


def test_wrapper_is_deterministic() -> None:
    from gradc.compiler.driver import Param, Signature

    sig = Signature((Param("x", "f64"), Param("k", "i32")), "tuple[bool,f32]")
    one = pywrapper.emit_wrapper(sig, "gradc_f_0123456789abcdef", CompilerOptions())
    assert one == pywrapper.emit_wrapper(sig, "gradc_f_0123456789abcdef", CompilerOptions())
    assert one.startswith(b"\x7fELF")
    arrays = Signature((Param("a", "f64[:]"),), "tuple[f64[:],i64]")
    two = pywrapper.emit_wrapper(arrays, "gradc_g_0123456789abcdef", CompilerOptions())
    assert two.startswith(b"\x7fELF")
    assert two == pywrapper.emit_wrapper(arrays, "gradc_g_0123456789abcdef", CompilerOptions())
    with pytest.raises(ValueError, match="not a gradc entry symbol"):
        pywrapper.wrapper_symbol("f")


def test_values(lib: Library) -> None:
    assert lib.add(1.5, 2.25) == 3.75
    assert type(lib.add(1, 2)) is float
    assert lib.mix(1.5, 7, True, 5) == (3.0, (8, False), 15, 0.5)
    r = lib.mix(np.float32(0.25), np.int32(-3), np.bool_(False), True)
    assert r == (0.5, (-2, True), 3, 0.5)
    assert type(r[1][1]) is bool and type(r[2]) is int
    assert lib.check(1) is None
    assert lib.truth(3) is True and lib.truth(-3) is False
    assert lib.answer() == 42
    assert lib.total(np.arange(4.0)) == 6.0


def test_builtin_metadata(lib: Library) -> None:
    import inspect

    fn = lib.add
    assert type(fn).__name__ == "builtin_function_or_method"
    assert fn.__name__ == "add"
    assert fn.__qualname__ == "fastmod.add"
    assert fn.__module__ == "fastmod"
    assert "add(a: f64, b: f64) -> f64" in (fn.__doc__ or "")
    assert str(inspect.signature(fn)) == "(a, b)"
    assert isinstance(fn.__self__, FastExport)  # type: ignore[attr-defined]


def test_keywords_and_argument_counts(lib: Library) -> None:
    assert lib.add(1.0, b=2.0) == 3.0
    assert lib.add(b=1.0, a=5.0) == 6.0
    with pytest.raises(TypeError, match="unexpected keyword argument 'c'"):
        lib.add(1.0, c=2.0)
    with pytest.raises(TypeError, match=r"takes 2 arguments .* but 3 were given"):
        lib.add(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match="missing 1 required argument: 'b'"):
        lib.add(1.0)
    with pytest.raises(TypeError, match="argument 'b' must be f64"):
        lib.add(1.0, b="x")


class _Float:
    def __float__(self) -> float:
        return 2.0


class _Index:
    def __index__(self) -> int:
        return 3


ODD_VALUES = [
    1,
    -1.0,
    True,
    2**70,
    10**400,
    -(2**63),
    2**63,
    2**31,
    -(2**31) - 1,
    Decimal("1.5"),
    Fraction(1, 2),
    np.float32(0.5),
    np.float64(-1.0),
    np.int64(2),
    np.int32(-7),
    np.bool_(True),
    np.array(2.0),
    np.array([2.0]),
    "s",
    None,
    _Float(),
    _Index(),
    1.5,
    float("nan"),
]


def _outcome(fn: Any, *args: Any) -> str:
    try:
        return repr(fn(*args))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("value", ODD_VALUES, ids=[repr(v)[:24] for v in ODD_VALUES])
def test_same_as_the_ctypes_path(lib: Library, value: Any) -> None:
    cases = [
        ("add", (value, 1.0)),
        ("add", (1.0, value)),
        ("mix", (value, 1, True, 2)),
        ("mix", (1.0, value, True, 2)),
        ("mix", (1.0, 1, value, 2)),
        ("mix", (1.0, 1, True, value)),
        ("check", (value,)),
        ("truth", (value,)),
    ]
    for name, args in cases:
        fast = _outcome(lib[name], *args)
        slow = _outcome(lib.ctypes_function(name), *args)
        assert fast == slow, (name, args)


def test_errors(lib: Library) -> None:
    with pytest.raises(ZeroDivisionError) as info:
        lib.div(1.0, 0.0)
    assert str(info.value) == "float division by zero"
    assert any("compiled fastmod.div" in note for note in info.value.__notes__)
    with pytest.raises(AssertionError):
        lib.check(-1)
    for _ in range(1000):  # the error path leaks no references
        with pytest.raises(AssertionError):
            lib.check(0)


def test_no_reference_leaks(lib: Library) -> None:
    x = 12345.678
    k = 10**12 + 7
    before = sys.getrefcount(x), sys.getrefcount(k)
    for _ in range(10_000):
        lib.add(x, x)
        lib.mix(x, 1, True, k)
        lib.check(k)
    assert (sys.getrefcount(x), sys.getrefcount(k)) == before


def test_outlives_the_library(artifact: Path) -> None:
    lib = gradc.load(artifact)
    fn = lib.mix
    del lib
    gc.collect()
    assert fn(1.0, 2, False, 3) == (2.0, (3, True), 9, 0.5)


def test_fastcall_can_be_turned_off(artifact: Path) -> None:
    lib = gradc.load(artifact, fastcall=False)
    assert not any(lib.is_fast(n) for n in lib)
    assert lib.add(1.0, 2.0) == 3.0
    code = (
        "import gradc, sys\n"
        f"lib = gradc.load({str(artifact)!r})\n"
        "print(lib.is_fast('add'), lib.add(1.0, 2.0))\n"
    )
    for env, want in (("0", "False 3.0"), ("1", "True 3.0")):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**_env(), "GRADC_FASTCALL": env},
        ).stdout.strip()
        assert out == want


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_faster_than_ctypes(lib: Library) -> None:
    fast, slow = lib.add, lib.ctypes_function("add")
    t_fast = min(timeit.repeat(lambda: fast(1.5, 2.5), number=20_000, repeat=5))
    t_slow = min(timeit.repeat(lambda: slow(1.5, 2.5), number=20_000, repeat=5))
    assert t_fast * 3 < t_slow, (t_fast, t_slow)
    assert math.isclose(fast(1.5, 2.5), 4.0)
