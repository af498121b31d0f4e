"""What the fuzzers' tests share: the parameters of a corpus replay (reduced findings
that must pass, and open ones, xfail), the check of a short seeded run, and the check
that a generated array module runs under NumPy."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.fuzzing import array_oracle, oracle
from tests.fuzzing.campaign import Campaign, read_header


def corpus_params(fixed: Sequence[Path], pending: Sequence[Path]) -> list[object]:
    """One pytest parameter per corpus file: ``fixed`` must pass; each of ``pending``
    is an open finding, ``xfail(strict=False)`` with its class (read from its header)."""
    out: list[object] = [pytest.param(p, id=p.stem) for p in fixed]
    for p in pending:
        cls = read_header(p.read_text())["class"]
        out.append(
            pytest.param(
                p,
                id=f"pending-{p.stem}",
                marks=pytest.mark.xfail(strict=False, reason=f"open finding: {cls}"),
            )
        )
    return out


def check_short_run(camp: Campaign, seeds: Sequence[int], open_seeds: Mapping[int, str]) -> None:
    """Every program of the run over ``seeds`` ran, and every failure is an open finding
    of ``open_seeds`` (seed -> its outcome class); derivatives and calls were checked.

    Raises:
        AssertionError: naming each unexpected failure, with the campaign's summary.
    """
    assert camp.programs == len(seeds)
    unexpected = [
        f"seed {f.seed}: {f.key}: {f.report.findings[:1]}"
        for f in camp.failures
        if open_seeds.get(f.seed) != f.report.outcome
    ]
    assert not unexpected, camp.summary() + "\n" + "\n".join(unexpected)
    assert camp.deriv_checks > 0 and camp.calls > 0


def covering_seeds(
    seeds: Iterable[int], program: Callable[[int], str], constructs: Sequence[str], most: int
) -> list[int]:
    """At most ``most`` of ``seeds`` whose programs together hold as many of
    ``constructs`` (substrings of the source) as all of them do: greedily, each next seed
    the one adding the most constructs not yet held (ties: the lower seed), then, once
    every construct is held, the seeds with the most constructs. Generating is cheap
    (no compiling), so a default test run can check the few programs of a fixed seed
    range that cover the generator's breadth, and a slow test all of them."""
    held = {s: {c for c in constructs if c in program(s)} for s in seeds}
    chosen: list[int] = []
    covered: set[str] = set()
    while held and len(chosen) < most:
        best = max(held, key=lambda s: (len(held[s] - covered), len(held[s]), -s))
        chosen.append(best)
        covered |= held.pop(best)
    return sorted(chosen)


def check_array_module_runs(source: str, seed: int, allowed: tuple[type[Exception], ...]) -> None:
    """Generated array module ``source`` has exports ``f`` and ``g`` (``g``
    differentiated), and each runs under NumPy on drawn inputs raising at most one of
    ``allowed`` (the errors the generator keeps on purpose); ``g`` returns a float."""
    ns: dict[str, object] = {"__name__": f"m{seed}"}
    exec(compile(source, f"<m{seed}>", "exec"), ns)
    fuzz, decls = oracle.describe(source)
    assert set(fuzz) == {"f", "g"} and {d.target for d in decls} == {"g"}
    rng = np.random.default_rng(seed)
    for export, spec in fuzz.items():
        args = oracle.materialize(array_oracle.draw(spec, rng))
        with contextlib.suppress(*allowed), np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = ns[export](*args)  # type: ignore[operator]
            if export == "g":
                assert isinstance(result, float)
