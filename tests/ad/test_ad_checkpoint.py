"""``@gradc.checkpoint`` (compiler/frontend/checkpoints.py, passes/ad/checkpoint.py): the
reverse sweep recomputes a helper instead of taping its intermediates. Gradients equal
the same module's without the decorator and central finite differences; forward mode is
unchanged; the tape shrinks; the decorator enters the keys of exactly the derivatives
that reach the helper."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

from ..cache.helpers import build_ok, run_python

KERNELS = Path(__file__).parent / "api" / "checkpoint.py"
TEXT = KERNELS.read_text()
PLAIN = TEXT.replace("@gradc.checkpoint\n", "")

RNG = np.random.default_rng(12)
A, W = RNG.uniform(-1.0, 1.0, 5), RNG.uniform(-1.0, 1.0, 5)
#: export -> (arguments, indices of the ``wrt`` parameters)
CASES: dict[str, tuple[tuple[Any, ...], tuple[int, ...]]] = {
    "scalar_loop": ((0.7, 1.3, 40), (0, 1)),
    "array_loop": ((A, W, 0.4, 7), (0, 1, 2)),
    "branch_loop": ((0.3, 0.8, 12), (0, 1)),
    "written_loop": ((A, 0.6, 6), (0, 1)),
    "nested_loop": ((0.2, 0.9, 9), (0, 1)),
    "tuple_loop": ((0.4, 1.2, 5), (0, 1)),
    "array_result": ((A, 0.7), (0, 1)),
}


@pytest.fixture(scope="module")
def libs(
    compile_module: Callable[[Path], Any], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Any, Any]:
    plain = tmp_path_factory.mktemp("plain") / "checkpoint.py"
    plain.write_text(PLAIN)
    return compile_module(KERNELS), compile_module(plain)


def _python() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(TEXT, str(KERNELS), "exec"), namespace)
    return namespace


def _fd(f: Callable[..., float], args: tuple[Any, ...], k: int) -> Any:
    """Central differences of ``f`` in argument ``k`` (a float or a float array)."""
    h = 1e-6

    def at(delta: Any) -> tuple[Any, ...]:
        moved = list(args)
        moved[k] = args[k] + delta
        return tuple(moved)

    if isinstance(args[k], np.ndarray):
        out = np.empty_like(args[k])
        for i in range(args[k].size):
            e = np.zeros_like(args[k])
            e[i] = h
            out[i] = (f(*at(e)) - f(*at(-e))) / (2 * h)
        return out
    return (f(*at(h)) - f(*at(-h))) / (2 * h)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_equals_uncheckpointed_and_finite_differences(
    libs: tuple[Any, Any], name: str
) -> None:
    ckpt, plain = libs
    args, wrt = CASES[name]
    got = getattr(ckpt, f"d_{name}")(*args)
    want = getattr(plain, f"d_{name}")(*args)
    assert getattr(ckpt, name)(*args) == getattr(plain, name)(*args)
    python = _python()[name]
    for k, g, w in zip(wrt, got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0.0)
        np.testing.assert_allclose(g, _fd(python, args, k), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["scalar_loop", "branch_loop", "nested_loop"])
def test_forward_mode_ignores_the_decorator(libs: tuple[Any, Any], name: str) -> None:
    ckpt, plain = libs
    args, _ = CASES[name]
    for tangents in ((1.0, 0.0), (0.0, 1.0), (0.3, -0.7)):
        assert getattr(ckpt, f"t_{name}")(*args, *tangents) == getattr(plain, f"t_{name}")(
            *args, *tangents
        )


def test_hessian_and_gradient_inside_code_equal_uncheckpointed(libs: tuple[Any, Any]) -> None:
    ckpt, plain = libs
    for name in ("h_composed", "descend"):
        np.testing.assert_allclose(
            getattr(ckpt, name)(0.4, 1.2), getattr(plain, name)(0.4, 1.2), rtol=1e-12, atol=0.0
        )


#: ``heavy`` checkpointed, reached by ``d_run`` and ``t_run``; ``other`` reaches neither
KEYS = """\
import math

import gradc
from gradc import f64


@gradc.checkpoint
def heavy(x, c):
    return math.sin(x * c) * x


@gradc.export
def run(x: f64, c: f64) -> f64:
    return heavy(heavy(x, c), c)


@gradc.export
def other(x: f64) -> f64:
    return math.sin(x) * x


d_run = gradc.grad(run, wrt=("x", "c"))
t_run = gradc.jvp(run, wrt=("x", "c"))
d_other = gradc.grad(other)
"""


def _keys(path: Path) -> dict[str, str]:
    return {e.name: e.key for e in build_module(path, CompilerOptions()).entries}


def test_the_decorator_enters_the_keys_of_exactly_the_gradients(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "m.py").write_text(KEYS)
    (tmp_path / "b" / "m.py").write_text(KEYS.replace("@gradc.checkpoint\n", ""))
    a, b = _keys(tmp_path / "a" / "m.py"), _keys(tmp_path / "b" / "m.py")
    assert {name for name in a if a[name] != b[name]} == {"d_run"}


def test_explain_names_the_recomputing_functions(tmp_path: Path) -> None:
    src, out = tmp_path / "m.py", tmp_path / "m.gradc"
    src.write_text(KEYS.replace("@gradc.checkpoint\n", ""))
    build_ok(src, out)
    src.write_text(KEYS)
    r, _ = build_ok(src, out, "--explain")
    lines = r.output.splitlines()
    assert {"hit   run", "hit   t_run", "hit   d_other"} <= set(lines), r.output
    miss = next(line for line in lines if line.startswith("miss  d_run: "))
    assert "source of heavy.f64.f64.fwd.0_1, heavy.f64.f64.rev.0_1 changed" in miss, miss
    assert "now calls heavy.f64.f64, heavy.f64.f64.fwd.0_1.taped" in miss, miss


#: a helper with many intermediates, called 10^5 times (tape of the plain gradient:
#: tens of MB; checkpointed: the two arguments per call)
MEMORY = """\
import math

import gradc
from gradc import f64, i64


@gradc.checkpoint
def heavy(x, c):
    a = x
    for k in range(12):
        a = math.sin(a * c + 0.1 * k) + 0.5 * math.cos(a)
    return x + 0.001 * a


@gradc.export
def run(x: f64, c: f64, n: i64) -> f64:
    for _ in range(n):
        x = heavy(x, c)
    return x


d_run = gradc.grad(run, wrt=("x", "c"))
"""

#: prints the growth of resident memory (KiB) over the first large gradient call, and the
#: gradient. The runtime keeps a freed tape's buffer (up to 256 MiB) for the next call
#: (compiler/codegen/runtime.py), so that growth is the tape's peak size; peak RSS
#: (``ru_maxrss``) would not do: loading the artifact peaks higher than either tape.
MEASURE = """\
import resource, sys
import gradc
lib = gradc.load(sys.argv[1])
def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024
lib.d_run(0.5, 1.1, 10)
before = resident()
g = lib.d_run(0.5, 1.1, 100000)
print(resident() - before)
print(repr(g))
"""


def test_checkpointed_tape_is_far_smaller(tmp_path: Path) -> None:
    results = {}
    for label, text in (("ckpt", MEMORY), ("plain", MEMORY.replace("@gradc.checkpoint\n", ""))):
        src, out = tmp_path / label / "m.py", tmp_path / label / "m.gradc"
        src.parent.mkdir()
        src.write_text(text)
        build_ok(src, out)
        p = run_python(MEASURE, str(out), cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        growth, gradient = p.stdout.split("\n", 1)
        results[label] = (int(growth), gradient)
    assert results["ckpt"][1] == results["plain"][1]
    # plain: about 25 floats per call (19 MiB); checkpointed: 2 floats per call (1.6 MiB)
    assert results["plain"][0] > 12_000, results
    assert results["ckpt"][0] * 5 < results["plain"][0], results


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "@gradc.checkpoint\n@gradc.export\ndef f(x: f64) -> f64:\n    return x * x\n",
            r"exported function 'f' cannot have other decorators",
        ),
        (
            "@gradc.export\ndef f(x: f64) -> f64:\n    return h(x)\n\n"
            "@gradc.checkpoint\n@gradc.custom_vjp\ndef h(x):\n    return x * x\n\n"
            "def h_fwd(x):\n    return h(x), x\n\ndef h_bwd(r, g):\n    return (g * r,)\n\n"
            "h.defvjp(h_fwd, h_bwd)\n",
            r"@gradc.checkpoint on 'h', which has a custom rule",
        ),
        (
            "@gradc.export\ndef f(a: f64[:]) -> f64:\n    return h(a)\n\n"
            "@gradc.checkpoint\ndef h(a):\n    a[0] = a[0] * 2.0\n    return a[0]\n",
            r"helper 'h' writes its array parameter 'a'",
        ),
        (
            "@gradc.export\ndef f(x: f64) -> f64:\n    return h(x, 3)\n\n"
            "@gradc.checkpoint\ndef h(x, k):\n    if k == 0:\n        return x\n"
            "    return g(x * x, k)\n\ndef g(x, k):\n    return h(x, k - 1)\n",
            r"@gradc.checkpoint helper 'h' is recursive",
        ),
        (
            "@gradc.export\ndef f(a: f64[:]) -> f64:\n    s = h(a)\n    a[0] = 1.0\n"
            "    return s + a[0]\n\n@gradc.checkpoint\ndef h(a):\n    return a[0] * a[1]\n",
            r"helper 'h': its caller may write the array argument 'a' \(A-layout\)",
        ),
        (
            "@gradc.export\ndef f(x: f64) -> f64:\n    return gradc.checkpoint(h)(x)\n\n"
            "def h(x):\n    return x * x\n",
            r"unsupported call of 'gradc.checkpoint\(h\)'",  # a decorator only
        ),
    ],
)
def test_refused_checkpoints(tmp_path: Path, body: str, message: str) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "import gradc\nfrom gradc import f64\n\n" + textwrap.dedent(body) + "\nd = gradc.grad(f)\n"
    )
    with pytest.raises(CompileError, match=message):
        build_module(src, CompilerOptions())


def test_a_helper_of_an_imported_module_is_checkpointed(tmp_path: Path) -> None:
    (tmp_path / "lib.py").write_text(
        "import math\n\nimport gradc\n\n\n@gradc.checkpoint\n"
        "def heavy(x, c):\n    return math.sin(x * c) * x\n"
    )
    src = tmp_path / "m.py"
    src.write_text(
        "import gradc\nfrom gradc import f64\n\nfrom lib import heavy\n\n\n@gradc.export\n"
        "def run(x: f64, c: f64) -> f64:\n    return heavy(x, c)\n\n\n"
        'd_run = gradc.grad(run, wrt=("x", "c"))\n'
    )
    (entry,) = (e for e in build_module(src, CompilerOptions()).entries if e.name == "d_run")
    assert "lib.heavy.f64.f64.fwd.0_1.taped" in entry.dependencies
