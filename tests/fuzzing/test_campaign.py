"""The campaign's bookkeeping (tests/fuzzing/campaign.py, runner.py) without compiling:
each program is built at the optimisation level of its seed, a failure and its corpus
header keep that level, and minimization builds each candidate source once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fuzzing import campaign
from tests.fuzzing.campaign import opt_for, read_header, run, write_failures
from tests.fuzzing.oracle import Finding, Report
from tests.fuzzing.runner import Runner


def test_opt_for_cycles_through_the_levels() -> None:
    assert [opt_for(s, (0, 0, 2)) for s in range(6)] == [0, 0, 2, 0, 0, 2]
    assert opt_for(7, 1) == 1


class _FakeRunner:
    """Runner's interface: seeds of ``failing`` fail as ``deriv_raises`` while their
    source still holds ``"return"``; every build is recorded."""

    builds: list[tuple[int, int, str]] = []

    def __init__(self, *, opt_level: int, timeout: float) -> None:
        pass

    def __enter__(self) -> _FakeRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def check(self, source: str, *, input_seed: int, kind: str, opt_level: int) -> Report:
        self.builds.append((input_seed, opt_level, source))
        if input_seed % 4 == 1 and "return" in source:
            return Report(
                outcome="deriv_raises",
                findings=[Finding("deriv_raises", "grad:d_f(1.0)", "raises")],
                calls=2,
                deriv_checks=1,
            )
        return Report(calls=2, deriv_checks=1)


def test_each_seed_is_built_at_its_level_and_failures_keep_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _FakeRunner.builds = []
    monkeypatch.setattr(campaign, "Runner", _FakeRunner)
    camp = run(range(8), profile="full", opt_level=(0, 2), size=3, minimize_per_key=1)
    first = [(seed, opt) for seed, opt, _ in _FakeRunner.builds[:2]]
    assert first == [(0, 0), (1, 2)]
    assert camp.by_opt == {0: 4, 2: 4} and camp.programs == 8
    assert [(f.seed, f.opt) for f in camp.failures] == [(1, 2), (5, 2)]
    # seed 1 was minimized at its own seed and level, each candidate built once
    minimizing = [b for b in _FakeRunner.builds if b[0] == 1][1:]
    assert {opt for _, opt, _ in minimizing} == {2}
    sources = [src for _, _, src in minimizing]
    assert len(sources) == len(set(sources)) and camp.failures[0].checks > 0
    (written,) = write_failures(camp, tmp_path)
    assert read_header(written.read_text())["opt"] == "2"
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["programs_per_opt"] == {"O0": 4, "O2": 4}


def test_the_worker_is_asked_for_the_requested_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that answers each request with the request itself (as the detail)."""
    echo = (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    print('@@FUZZ@@' + __import__('json').dumps({'detail': line.strip()}), flush=True)\n"
    )

    def start(self: Runner) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-c", echo],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    monkeypatch.setattr(Runner, "_start", start)
    with Runner(opt_level=0, timeout=30) as r:
        asked: list[Any] = [
            json.loads(r.check("x = 1\n", opt_level=level).detail)["opt_level"]
            for level in (2, None, 3)
        ]
    assert asked == [2, 0, 3]


def test_a_run_stops_between_programs_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    _FakeRunner.builds = []
    monkeypatch.setattr(campaign, "Runner", _FakeRunner)
    camp = run(range(0, 40, 4), profile="full", size=3, stop=lambda: len(_FakeRunner.builds) >= 3)
    assert camp.programs == 3 and len(_FakeRunner.builds) == 3
