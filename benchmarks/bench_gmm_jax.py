"""GMM d10 K25 (ADBench): gradc's objective, gradient and value_and_grad against JAX's.

    python benchmarks/bench_gmm_jax.py                      # gmm/1k/gmm_d10_K25.txt
    python benchmarks/bench_gmm_jax.py --artifact A.gradc   # an artifact already built
    python benchmarks/bench_gmm_jax.py --cpu x86-64-v3      # one CPU variant

gradc builds examples/gmm.py (``gmm_objective``, ``d_gmm``, ``vg_gmm``); JAX runs
``jax.jit`` of ADBench's vectorised GMM objective in ``jax.numpy`` (the packed lower
triangle scattered into ``(k, d, d)`` matrices, an ``einsum`` for ``L (x_i - mu_j)``),
``jax.jit(jax.grad(...))`` and ``jax.jit(jax.value_and_grad(...))`` with respect to
alphas, means and icf, (``gamma`` and ``m`` static), in float64 on one XLA thread (``XLA_FLAGS`` is set before JAX is
imported; gradc's code is single-threaded). The objective and gradients are checked
against each other first (and the objective against ADBench's reference value).

Timing: ``--repeat`` interleaved rounds; in each round every callable runs ``N`` calls
back to back (``N`` chosen so a run lasts about ``--min-run`` CPU seconds), timed by the
process CPU clock (``time.process_time``: waiting for a core on a loaded machine does not
count; JAX's threads do) and by the wall clock. Each figure is the median over rounds;
each ratio the median of the per-round ratios. The load average is printed.
"""

from __future__ import annotations

import os

os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

import argparse
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from timing import load_note

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def jax_gmm(d: int, k: int) -> dict[str, Callable[..., Any]] | None:
    """``jit`` of the objective, its ``grad`` and ``value_and_grad`` (argnums 0, 1, 2);
    None without JAX."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    rows, cols, packed = [], [], []
    for c in range(d):
        for r in range(c + 1, d):
            rows.append(r)
            cols.append(c)
            packed.append(d + c * (2 * d - c - 1) // 2 + (r - c - 1))
    rows_a, cols_a, packed_a = np.array(rows), np.array(cols), np.array(packed)

    def logsumexp(v: Any, axis: int) -> Any:
        mx = jnp.max(v, axis=axis, keepdims=True)
        return jnp.log(jnp.sum(jnp.exp(v - mx), axis=axis)) + jnp.squeeze(mx, axis)

    def objective(alphas: Any, means: Any, icf: Any, x: Any, gamma: float, m: int) -> Any:
        n = x.shape[0]
        qs = icf[:, :d]
        ls = jnp.zeros((k, d, d)).at[:, rows_a, cols_a].set(icf[:, packed_a])
        xc = x[:, None, :] - means[None, :, :]  # (n, k, d)
        qx = jnp.exp(qs)[None] * xc + jnp.einsum("krc,nkc->nkr", ls, xc)
        inner = alphas + jnp.sum(qs, axis=1) - 0.5 * jnp.sum(qx * qx, axis=2)
        n_p = d + m + 1
        multigamma = 0.25 * d * (d - 1) * math.log(math.pi) + sum(
            math.lgamma(0.5 * n_p + 0.5 * (1 - j)) for j in range(1, d + 1)
        )
        c = n_p * d * (jnp.log(gamma) - 0.5 * math.log(2.0)) - multigamma
        prior = jnp.sum(
            0.5
            * gamma
            * gamma
            * (jnp.sum(jnp.exp(2.0 * qs), axis=1) + jnp.sum(icf[:, d:] ** 2, axis=1))
            - m * jnp.sum(qs, axis=1)
        )
        return (
            -0.5 * n * d * math.log(2.0 * math.pi)
            + jnp.sum(logsumexp(inner, 1))
            - n * logsumexp(alphas, 0)
            + prior
            - k * c
        )

    def ready(fn: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *args: jax.block_until_ready(fn(*args))

    return {
        "objective": ready(jax.jit(objective, static_argnums=(4, 5))),
        "gradient": ready(jax.jit(jax.grad(objective, argnums=(0, 1, 2)), static_argnums=(4, 5))),
        "value_and_grad": ready(
            jax.jit(jax.value_and_grad(objective, argnums=(0, 1, 2)), static_argnums=(4, 5))
        ),
    }


def gradc_gmm(artifact: Path | None, cpu: str | None, tmp: Path) -> Any:
    """The loaded artifact of examples/gmm.py (built here unless ``artifact`` is given)."""
    import gradc

    if artifact is None:
        from gradc.artifacts.store import write_artifact
        from gradc.compiler.driver import build_module
        from gradc.compiler.options import CompilerOptions

        options = CompilerOptions(cpu=cpu) if cpu else CompilerOptions()
        artifact = tmp / "gmm.gradc"
        write_artifact(artifact, build_module(EXAMPLES / "gmm.py", options))
    return gradc.load(artifact)


def rounds(
    fns: dict[str, Callable[[], Any]], repeat: int, min_run: float
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """CPU and wall seconds per call of each of ``fns``, one sample per round."""
    numbers = {}
    for name, fn in fns.items():
        fn()
        start = time.process_time()
        fn()
        numbers[name] = max(1, int(min_run / max(time.process_time() - start, 1e-6)))
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    wall: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            number = numbers[name]
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(number):
                fn()
            cpu[name].append((time.process_time() - c0) / number)
            wall[name].append((time.perf_counter() - w0) / number)
    return cpu, wall


def check(lib: Any, jax_fns: dict[str, Callable[..., Any]] | None, args: tuple[Any, ...]) -> None:
    """gradc's value and gradient against JAX's (and value_and_grad against both)."""
    value = lib.gmm_objective(*args)
    grad = lib.d_gmm(*args)
    vg_value, vg_grad = lib.vg_gmm(*args)
    assert vg_value == value, (vg_value, value)
    for a, b in zip(vg_grad, grad, strict=True):
        np.testing.assert_array_equal(a, b)
    if jax_fns is not None:
        np.testing.assert_allclose(value, float(jax_fns["objective"](*args)), rtol=1e-12)
        for a, b in zip(grad, jax_fns["gradient"](*args), strict=True):
            np.testing.assert_allclose(a, np.asarray(b), rtol=1e-9, atol=1e-9)


def main(argv: list[str] | None = None) -> int:
    """Build, check and time; print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instance", default="gmm/1k/gmm_d10_K25.txt")
    parser.add_argument("--artifact", type=Path, help="a built artifact of examples/gmm.py")
    parser.add_argument("--cpu", help="gradc build --cpu (default: the default variants)")
    parser.add_argument("--repeat", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--min-run", type=float, default=0.1, help="CPU seconds per run")
    parser.add_argument("--no-jax", action="store_true", help="time gradc alone")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(EXAMPLES))
    from gmm_io import DATA, read_gmm_instance, read_reference, reference_for

    inputs = read_gmm_instance(DATA / args.instance)
    k, d = inputs[1].shape
    with tempfile.TemporaryDirectory(prefix="bench_gmm_") as tmp:
        lib = gradc_gmm(args.artifact, args.cpu, Path(tmp))
        jax_fns = None if args.no_jax else jax_gmm(d, k)
        check(lib, jax_fns, inputs)
        ref = reference_for(args.instance)
        if ref.exists():
            want = read_reference(ref)["objective"]
            np.testing.assert_allclose(lib.gmm_objective(*inputs), want, rtol=1e-9)
        fns: dict[str, Callable[[], Any]] = {
            "gradc objective": lambda: lib.gmm_objective(*inputs),
            "gradc gradient": lambda: lib.d_gmm(*inputs),
            "gradc value_and_grad": lambda: lib.vg_gmm(*inputs),
        }
        if jax_fns is not None:
            for kind, fn in jax_fns.items():
                fns[f"jax {kind}"] = lambda fn=fn: fn(*inputs)
        print(f"{args.instance}; {load_note()}; {args.repeat} rounds")
        before = load_note()
        cpu, wall = rounds(fns, args.repeat, args.min_run)
    print(f"load average before/after: {before} / {load_note()}")
    print(f"{'':24} {'cpu ms':>9} {'wall ms':>9}")
    for name in fns:
        print(
            f"{name:24} {statistics.median(cpu[name]) * 1e3:9.3f} {statistics.median(wall[name]) * 1e3:9.3f}"
        )

    def ratio(a: str, b: str, clock: dict[str, list[float]]) -> float:
        return statistics.median(x / y for x, y in zip(clock[a], clock[b], strict=True))

    pairs = [("gradc gradient", "gradc objective"), ("gradc value_and_grad", "gradc objective")]
    if jax_fns is not None:
        pairs += [
            ("gradc objective", "jax objective"),
            ("gradc gradient", "jax gradient"),
            ("gradc value_and_grad", "jax value_and_grad"),
            ("jax gradient", "jax objective"),
        ]
    for a, b in pairs:
        print(f"{a} / {b}: cpu {ratio(a, b, cpu):.2f}, wall {ratio(a, b, wall):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
