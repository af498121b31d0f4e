"""The gradient of issue 11's ``gaussian_loss``: gradc's ``d_loss`` vs JAX's ``jit(grad)``.

    python benchmarks/bench_gaussian_grad.py           # x: 2000, w: 500 x 2000
    python benchmarks/bench_gaussian_grad.py --quick   # x: 200, w: 50 x 200
    python benchmarks/bench_gaussian_grad.py --cpu x86-64

gradc builds ``d_loss = gradc.grad(gaussian_loss, wrt=("x", "mu", "sigma", "w"))`` (reverse
mode of the array code); JAX runs ``jax.jit(jax.grad(loss, argnums=(0, 1, 2, 3)))`` of the
same source written with ``jax.numpy``, in float64 (``jax_enable_x64``), on one thread
(``XLA_FLAGS`` is set before JAX is imported; gradc's code is single-threaded). The
gradients are checked against each other before timing. The row gives the median CPU
time per call over ``--repeat`` interleaved rounds and gradc / JAX as the median of the
per-round ratios. Without JAX the script says so and times gradc alone.
"""

from __future__ import annotations

import os

os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

import argparse
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from bench_elementwise import build
from timing import interleaved_rounds, load_note

SOURCE = """\
import numpy as np

import gradc
from gradc import f64


@gradc.export
def gaussian_loss(x: f64[:], mu: f64, sigma: f64, w: f64[:, :]) -> f64:
    z = (x - mu) / sigma
    p = np.exp(-0.5 * z * z) / (sigma * np.sqrt(2.0 * np.pi))
    h = np.tanh(w @ p)
    return np.sum(h[1:] - h[:-1]) + p.max()


d_loss = gradc.grad(gaussian_loss, wrt=("x", "mu", "sigma", "w"))
"""


def jax_gradient() -> Callable[..., Any] | None:
    """``jit(grad)`` of the same source in ``jax.numpy``; None without JAX."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def gaussian_loss(x: Any, mu: Any, sigma: Any, w: Any) -> Any:
        z = (x - mu) / sigma
        p = jnp.exp(-0.5 * z * z) / (sigma * jnp.sqrt(2.0 * jnp.pi))
        h = jnp.tanh(w @ p)
        return jnp.sum(h[1:] - h[:-1]) + p.max()

    grad = jax.jit(jax.grad(gaussian_loss, argnums=(0, 1, 2, 3)))

    def run(*args: Any) -> Any:
        return jax.block_until_ready(grad(*args))

    return run


def main(argv: list[str] | None = None) -> int:
    """Build, check and time; print one row."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--repeat", type=int, default=9, help="interleaved rounds")
    parser.add_argument("--cpu", help="gradc build --cpu (default: the default variants)")
    args = parser.parse_args(argv)
    m, n = (50, 200) if args.quick else (500, 2000)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(n), rng.standard_normal((m, n)) / np.sqrt(n)
    mu, sigma = 0.1, 0.9
    d_loss = build(SOURCE, "d_loss", args.cpu)
    ours = d_loss(x, mu, sigma, w)
    fns: dict[str, Callable[[], Any]] = {"gradc": lambda: d_loss(x, mu, sigma, w)}
    print(
        f"grad of gaussian_loss, x: {n}, w: {m} x {n}, gradc --cpu {args.cpu or 'default'}; {load_note()}"
    )
    jax_grad = jax_gradient()
    if jax_grad is None:
        print("JAX is not installed: gradc alone")
    else:
        theirs = jax_grad(x, mu, sigma, w)
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, np.asarray(b), rtol=1e-9, atol=1e-12)
        fns["jax"] = lambda: jax_grad(x, mu, sigma, w)
    times, ratios = interleaved_rounds(fns, args.repeat)
    row = f"gradc {times['gradc'] * 1e3:.3f} ms"
    if "jax" in times:
        row += f", jax.jit(grad) {times['jax'] * 1e3:.3f} ms, gradc/jax {1 / ratios['jax']:.2f}"
    print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
