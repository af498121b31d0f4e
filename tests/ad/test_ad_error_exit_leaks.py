"""Error exits of derivative calls release every owned array and the tape (issue #18).

``d_loop_arrays`` (tests/ad/error_exits/kernels.py) leaked the shadows of its loop's
local array when it raised: its wrapper ``tapenew; call fwd; call rev; tapefree`` holds
no array (the function's parameters are scalars), so ``lifetimes`` skipped it and the
calls got no ``unwind`` set: the error exit never freed the tape, nor the array
references on it. Whether the raise was explicit or implicit did not matter; the
signature did (with an array parameter the pass ran and recorded the tape).

Kernels: tests/ad/error_exits/leaks.py — explicit ``raise`` and ``assert`` inside loops,
in the function and in helpers (one returning an array), an implicit raising operation,
scalar-only signatures and one with an array parameter. Every flavour (primal, grad,
value_and_grad, vjp, jvp, reverse) is measured by the runtime's live-block count around
repeated raising and returning calls. Oracles: CPython running the same source (the
exception's type and message, the value), central finite differences of the plain
function for ``grad``, and ``grad`` for the other flavours. The tape of a function with
no array at all is checked by RSS in a fresh process (a tape is not a runtime block).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gradc
from tests.ad.corpus import _harness as H

KERNELS = Path(__file__).parent / "error_exits" / "leaks.py"

W_RISE = np.linspace(-1.0, 1.0, 8)
W_NEG = np.full(8, -1.0)

#: Per kernel: inputs on which CPython raises (at a later loop iteration, so the tape
#: holds several iterations' arrays) and inputs on which it returns.
RAISING: dict[str, list[tuple[Any, ...]]] = {
    "raise_loop": [(2.0, 6)],
    "assert_loop": [(2.0, 6)],
    "helper_loop": [(3.0, 4), (1.0, 6)],  # the helper's raise; the helper's assert
    "implicit_loop": [(2.0, 6)],
    "array_loop": [(-2.0, W_NEG, 8), (1.0, W_NEG, 8), (2.0, W_RISE, 8)],
}
RETURNING: dict[str, list[tuple[Any, ...]]] = {
    "raise_loop": [(0.7, 6)],
    "assert_loop": [(0.7, 6)],
    "helper_loop": [(0.5, 5)],
    "implicit_loop": [(0.7, 6)],
    "array_loop": [(0.3, W_RISE, 8)],
}
CT = 0.5  # the vjp's cotangent


def _reverse(lib: Any, name: str, args: list[Any]) -> tuple[float, float]:
    if name == "array_loop":  # (x, w, d_w, n): w is Duplicated
        x, w, n = args
        value, d_x = lib.r_array_loop(x, w, np.zeros_like(w), n)
        return value, d_x
    value, d_x = getattr(lib, f"r_{name}")(*args)
    return value, d_x


#: flavour -> call(lib, kernel name, args) -> (value or None, d/dx)
FLAVOURS: dict[str, Callable[[Any, str, list[Any]], tuple[Any, Any]]] = {
    "primal": lambda lib, name, args: (getattr(lib, name)(*args), None),
    "grad": lambda lib, name, args: (None, getattr(lib, f"d_{name}")(*args)),
    "value_and_grad": lambda lib, name, args: getattr(lib, f"vg_{name}")(*args),
    "vjp": lambda lib, name, args: (None, getattr(lib, f"v_{name}")(*args, CT) / CT),
    "jvp": lambda lib, name, args: getattr(lib, f"t_{name}")(*args, 1.0),
    "reverse": _reverse,
}


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    out = tmp_path_factory.mktemp("leaks") / "leaks.gradc"
    write_artifact(out, build_module(KERNELS, CompilerOptions()))
    return out


@pytest.fixture(scope="module")
def lib(artifact: Path) -> Any:
    return gradc.load(artifact)


@pytest.fixture(scope="module")
def plain() -> Any:
    return H.load_plain(KERNELS)


def _copy(args: tuple[Any, ...]) -> list[Any]:
    return H.copy_args(args)


def _live() -> int:
    return int(gradc.runtime_stats()["live"])


@pytest.mark.parametrize("flavour", list(FLAVOURS))
@pytest.mark.parametrize("name", list(RAISING))
def test_raising_calls_release_everything(name: str, flavour: str, lib: Any, plain: Any) -> None:
    call = FLAVOURS[flavour]
    for args in RAISING[name]:
        with pytest.raises(Exception) as expected:
            getattr(plain, name)(*_copy(args))
        before = _live()
        for _ in range(3):
            with pytest.raises(Exception) as info:
                call(lib, name, _copy(args))
            assert type(info.value) is type(expected.value), (args, info.value)
            assert str(info.value) == str(expected.value), (args, info.value)
        leaked = _live() - before
        assert leaked == 0, f"{flavour} of {name}{args!r}: {leaked} arrays leaked"


@pytest.mark.parametrize("name", list(RETURNING))
def test_returning_calls_agree_and_release_everything(name: str, lib: Any, plain: Any) -> None:
    for args in RETURNING[name]:
        fn = getattr(plain, name)
        value = fn(*_copy(args))
        fd = H.fd_partial(fn, _copy(args), 0)
        grad = getattr(lib, f"d_{name}")(*_copy(args))
        assert H.fd_close(grad, fd, value), (name, args, grad, fd)
        before = _live()
        for flavour, call in FLAVOURS.items():
            for _ in range(3):
                v, d = call(lib, name, _copy(args))
                if v is not None:
                    assert v == pytest.approx(value, rel=1e-12), (flavour, args)
                if d is not None:
                    assert d == pytest.approx(grad, rel=1e-12, abs=1e-14), (flavour, args)
        leaked = _live() - before
        assert leaked == 0, f"{name}{args!r}: {leaked} arrays leaked"


SCRIPT = textwrap.dedent(
    """\
    import json, sys
    import gradc

    def rss_mib():  # resident now (the peak, ru_maxrss, is set by loading the artifact)
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096 / 2**20

    lib = gradc.load(sys.argv[1])
    calls = int(sys.argv[2])

    def run(count):
        for _ in range(count):
            try:
                lib.d_scalar_loop(0.3, 20_000)
            except ValueError:
                pass
            else:
                raise AssertionError("d_scalar_loop did not raise")

    run(5)                                  # warm: the cached tape grows once
    rss = rss_mib()
    run(calls)
    print(json.dumps({"rss_mib": rss_mib() - rss}))
    """
)


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc/self/statm")
def test_the_tape_of_a_function_without_arrays_is_freed_when_it_raises(artifact: Path) -> None:
    """``d_scalar_loop`` pushes ~20 000 scalars, then raises: before the fix each call
    leaked its tape (hundreds of KiB), which no block count sees; RSS must stay flat."""
    with pytest.raises(ValueError, match="after the loop"):
        H.load_plain(KERNELS).scalar_loop(0.3, 20_000)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(artifact), "400"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rss = json.loads(done.stdout.strip().splitlines()[-1])["rss_mib"]
    assert rss < 16, f"RSS grew by {rss:.1f} MiB over 400 raising calls"
