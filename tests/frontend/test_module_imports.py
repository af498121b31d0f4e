"""Programs of several files (tests/frontend/corpus_imports/): gradc against CPython importing them.

Each case directory holds a ``main.py`` (at its root, or in a package below it) that
imports the case's other files. gradc compiles the main module, reading the files without
running them; the oracle is CPython importing the very same files, with the case directory
first on ``sys.path``. See tests/frontend/corpus_imports/README.md for ``CASES`` and ``GRADS``.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

CORPUS = Path(__file__).parent / "corpus_imports"


def _main_file(case: Path) -> Path:
    root = case / "main.py"
    if root.is_file():
        return root
    (found,) = sorted(case.glob("*/main.py"))
    return found


CASE_DIRS = sorted(d for d in CORPUS.iterdir() if d.is_dir())


@contextlib.contextmanager
def _imported(case: Path) -> Iterator[ModuleType]:
    """The case's main module imported by CPython; its modules leave ``sys.modules`` after."""
    main = _main_file(case)
    dotted = "main" if main.parent == case else f"{main.parent.name}.main"
    before = set(sys.modules)
    sys.path.insert(0, str(case))
    importlib.invalidate_caches()
    try:
        yield importlib.import_module(dotted)
    finally:
        sys.path.remove(str(case))
        for name in set(sys.modules) - before:
            del sys.modules[name]


def _same(got: Any, expected: Any) -> bool:
    if isinstance(expected, tuple):
        return (
            isinstance(got, tuple)
            and len(got) == len(expected)
            and all(_same(g, e) for g, e in zip(got, expected, strict=True))
        )
    if isinstance(expected, np.ndarray):
        return bool(np.allclose(got, expected, rtol=1e-13, atol=0.0))
    if isinstance(expected, float):
        # libm and CPython may differ in the last bit of sin/cos
        return isinstance(got, float) and math.isclose(got, expected, rel_tol=1e-14, abs_tol=1e-300)
    return type(got) is type(expected) and got == expected


@pytest.mark.parametrize("case", CASE_DIRS, ids=lambda d: d.name)
def test_case_matches_cpython(case: Path, compile_module: Callable[[Path], Any]) -> None:
    lib = compile_module(_main_file(case))
    with _imported(case) as py:
        assert py.CASES, f"{case.name}: no CASES"
        for name, calls in py.CASES.items():
            for args in calls:
                expected = getattr(py, name)(*args)
                got = getattr(lib, name)(*args)
                assert _same(got, expected), f"{case.name}.{name}{args}: {got!r} != {expected!r}"


def _central_difference(fn: Callable[..., float], args: tuple[float, ...], i: int) -> float:
    h = 1e-6 * max(1.0, abs(args[i]))
    up = list(args)
    down = list(args)
    up[i] += h
    down[i] -= h
    return (fn(*up) - fn(*down)) / (2 * h)


@pytest.mark.parametrize(
    "case", [d for d in CASE_DIRS if "GRADS" in _main_file(d).read_text()], ids=lambda d: d.name
)
def test_derivatives_through_imported_functions(
    case: Path, compile_module: Callable[[Path], Any]
) -> None:
    lib = compile_module(_main_file(case))
    with _imported(case) as py:
        for d_name, (name, calls) in py.GRADS.items():
            fn = getattr(py, name)
            for args in calls:
                got = getattr(lib, d_name)(*args)
                assert len(got) == len(args)
                for i, g in enumerate(got):
                    fd = _central_difference(fn, args, i)
                    assert math.isclose(g, fd, rel_tol=1e-6, abs_tol=1e-7), (
                        f"{case.name}.{d_name}{args}[{i}]: {g} vs finite difference {fd}"
                    )


@pytest.mark.parametrize(
    "case", [d for d in CASE_DIRS if "JVPS" in _main_file(d).read_text()], ids=lambda d: d.name
)
def test_forward_mode_through_imported_functions(
    case: Path, compile_module: Callable[[Path], Any]
) -> None:
    lib = compile_module(_main_file(case))
    with _imported(case) as py:
        for t_name, (name, calls) in py.JVPS.items():
            fn = getattr(py, name)
            for args, tangents in calls:
                value, directional = getattr(lib, t_name)(*args, *tangents)
                assert math.isclose(value, fn(*args), rel_tol=1e-14)
                h = 1e-6
                up = [a + h * t for a, t in zip(args, tangents, strict=True)]
                down = [a - h * t for a, t in zip(args, tangents, strict=True)]
                fd = (fn(*up) - fn(*down)) / (2 * h)
                assert math.isclose(directional, fd, rel_tol=1e-6, abs_tol=1e-7), (
                    f"{case.name}.{t_name}{args}: {directional} vs finite difference {fd}"
                )


def test_derivative_error_inside_an_imported_file_names_that_file(tmp_path: Path) -> None:
    from gradc.compiler.diagnostics import CompileError
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    # the second derivative of math.lgamma needs digamma's derivative, which has no rule
    (tmp_path / "helpers.py").write_text(
        "import math\n\n\ndef total(x):\n    y = x * 2\n    return math.lgamma(y) + y\n"
    )
    main = tmp_path / "main.py"
    main.write_text(
        "import gradc\nfrom helpers import total\n\n\n@gradc.export\n"
        "def run(x: float) -> float:\n    return total(x)\n\n\nd_run = gradc.grad(run)\n"
        "h_run = gradc.jvp(d_run)\n"
    )
    with pytest.raises(CompileError) as info:
        build_module(main, CompilerOptions())
    err = info.value
    assert (err.loc.file, err.loc.line) == (str(tmp_path / "helpers.py"), 6)
    assert "cannot differentiate" in err.message and "math.digamma" in err.message
    assert "in 'total'" in err.message
    assert "    return math.lgamma(y) + y\n" in str(err)
