"""What the fuzzers' tests share: the parameters of a corpus replay (reduced findings
that must pass, and open ones, xfail) and the check of a short seeded run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

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
