"""Run the compiled GMM objective and its gradient on an ADBench instance.

    gradc build examples/gmm.py        # writes examples/build/gmm.gradc
    python examples/gmm_main.py        # loads it, reads gmm/1k/gmm_d10_K25.txt

Prints the objective, the norm of the gradient with respect to (alphas, means, icf), and
how far both are from ADBench's reference values.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from gmm_io import DATA, flatten_gradient, read_gmm_instance, read_reference, reference_for

import gradc

DEFAULT_INSTANCE = "gmm/1k/gmm_d10_K25.txt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--artifact",
        default=str(Path(__file__).parent / "build" / "gmm.gradc"),
        help="built artifact directory",
    )
    parser.add_argument(
        "--instance", default=DEFAULT_INSTANCE, help="file under examples/data/adbench"
    )
    args = parser.parse_args(argv)

    artifact = Path(args.artifact)
    if not artifact.is_dir():
        print(f"{artifact} not found: run `gradc build examples/gmm.py` first", file=sys.stderr)
        return 1
    lib = gradc.load(artifact)
    alphas, means, icf, x, gamma, m = read_gmm_instance(DATA / args.instance)
    k, d = means.shape
    print(f"instance: {args.instance} (d={d}, k={k}, n={x.shape[0]})")

    start = time.perf_counter()
    value = lib.gmm_objective(alphas, means, icf, x, gamma, m)
    t_obj = time.perf_counter() - start
    start = time.perf_counter()
    grad = lib.d_gmm(alphas, means, icf, x, gamma, m)
    t_grad = time.perf_counter() - start
    flat = flatten_gradient(*grad)

    print(f"objective:     {value:.15g}")
    print(f"gradient norm: {float(np.linalg.norm(flat)):.15g} ({flat.size} entries)")
    print(f"time:          objective {t_obj * 1e3:.2f} ms, gradient {t_grad * 1e3:.2f} ms")

    ref_path = reference_for(args.instance)
    if ref_path.exists():
        ref = read_reference(ref_path)
        obj_err = abs(value - ref["objective"]) / abs(ref["objective"])
        expected = np.asarray(ref["gradient"])
        grad_err = float(np.max(np.abs(flat - expected) / np.abs(expected)))
        print(
            f"vs reference:  objective {obj_err:.1e} relative, gradient {grad_err:.1e} max relative"
        )
        return 0 if obj_err <= 1e-8 and grad_err <= 1e-8 and math.isfinite(value) else 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
