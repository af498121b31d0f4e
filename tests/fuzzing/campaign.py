"""A fuzzing campaign: generate, check, count by outcome class, minimize the failures.

Shared by ``scripts/fuzz.py`` (long runs) and ``tests/fuzzing/test_fuzz.py`` (the short CI run).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzzing.array_generator import generate_arrays
from tests.fuzzing.array_generator_more import generate_arrays_more
from tests.fuzzing.generator import generate
from tests.fuzzing.minimize import minimize
from tests.fuzzing.oracle import FAILURES, Report
from tests.fuzzing.runner import Runner


def program_for(seed: int, profile: str, size: int = 10) -> str:
    """The module of ``seed`` under a generator profile: ``full``, ``avoid-known`` or
    ``mixed`` (odd seeds avoid the known bug classes, even seeds do not), or ``arrays``
    (whole-array NumPy modules, ``array_generator``, checked by ``array_oracle``), or
    ``arrays-more`` (those and more of NumPy, ``array_generator_more``)."""
    if profile == "arrays":
        return generate_arrays(seed, size)
    if profile == "arrays-more":
        return generate_arrays_more(seed, size)
    avoid = profile == "avoid-known" or (profile == "mixed" and seed % 2 == 1)
    return generate(seed, size, avoid_known=avoid)


def opt_for(seed: int, levels: int | Sequence[int]) -> int:
    """The LLVM optimisation level program ``seed`` is built at: ``levels`` itself, or
    ``levels[seed % len(levels)]`` for a cycle of levels (``(0, 0, 2)``: most programs at
    the cheap ``-O0``, every third at ``-O2``, where bugs that depend on LLVM's optimiser
    show)."""
    if isinstance(levels, int):
        return levels
    return levels[seed % len(levels)]


@dataclass
class Failure:
    seed: int
    key: str
    report: Report
    source: str
    minimized: str | None = None
    checks: int = 0
    opt: int = 0


@dataclass
class Campaign:
    """Counts and failures of a run (``counts`` per outcome class)."""

    counts: Counter[str] = field(default_factory=Counter)
    constructs: Counter[str] = field(default_factory=Counter)  # compile errors by construct
    by_opt: Counter[int] = field(default_factory=Counter)  # programs per optimisation level
    keys: Counter[str] = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    programs: int = 0
    calls: int = 0
    deriv_checks: int = 0
    skipped: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        lines = [
            f"programs {self.programs}, primal calls {self.calls}, derivative checks "
            f"{self.deriv_checks}, skipped inputs {self.skipped}, {self.seconds:.0f} s",
            "programs per -O level: "
            + ", ".join(f"-O{o} {n}" for o, n in sorted(self.by_opt.items())),
        ]
        for cls, n in sorted(self.counts.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {cls:15s} {n}")
        if self.constructs:
            lines.append("compile errors by construct:")
            for c, n in self.constructs.most_common():
                lines.append(f"  {n:5d}  {c[:110]}")
        if self.keys:
            lines.append("failures by key:")
            for k, n in self.keys.most_common():
                lines.append(f"  {n:5d}  {k[:110]}")
        return "\n".join(lines)


def run(
    seeds: Iterable[int],
    *,
    profile: str = "mixed",
    opt_level: int | Sequence[int] = 2,
    size: int = 10,
    deadline: float | None = None,
    minimize_per_key: int = 0,
    minimize_checks: int = 200,
    on_program: Callable[[int, Report], None] | None = None,
    timeout: float = 120.0,
    stop: Callable[[], bool] | None = None,
) -> Campaign:
    """Check the programs of ``seeds`` (until ``deadline``, a ``time.monotonic()`` value,
    or until ``stop()`` holds between two programs), each at ``opt_for(seed, opt_level)``;
    minimize the first ``minimize_per_key`` failures of each key. A program whose check
    takes longer than ``timeout`` seconds (wall clock) is a ``timeout``."""
    camp = Campaign()
    start = time.monotonic()
    kind = "arrays" if profile.startswith("arrays") else "scalar"
    with Runner(opt_level=opt_for(0, opt_level), timeout=timeout) as runner:
        for seed in seeds:
            if (deadline is not None and time.monotonic() > deadline) or (stop and stop()):
                break
            source = program_for(seed, profile, size)
            opt = opt_for(seed, opt_level)
            report = runner.check(source, input_seed=seed, kind=kind, opt_level=opt)
            camp.programs += 1
            camp.by_opt[opt] += 1
            camp.counts[report.outcome] += 1
            camp.calls += report.calls
            camp.deriv_checks += report.deriv_checks
            camp.skipped += report.skipped
            if report.outcome == "compile_error":
                camp.constructs[report.detail] += 1
            if report.outcome in FAILURES or report.outcome == "oracle_error":
                key = report.key()
                camp.keys[key] += 1
                fail = Failure(seed, key, report, source, opt=opt)
                camp.failures.append(fail)
                if camp.keys[key] <= minimize_per_key:
                    _minimize(runner, fail, kind, minimize_checks)
            if on_program is not None:
                on_program(seed, report)
    camp.seconds = time.monotonic() - start
    return camp


def _minimize(runner: Runner, fail: Failure, kind: str, max_checks: int) -> None:
    """Reduce ``fail``'s program while its check keeps ``fail.key`` (at the failure's seed
    and optimisation level); its report becomes the reduced program's. Each candidate
    source is built once: the minimizer's later stages propose candidates an earlier
    stage already rejected, and the reduced program is usually the last one accepted."""
    reports: dict[str, Report] = {}

    def report_of(source: str) -> Report:
        if source not in reports:
            reports[source] = runner.check(
                source, input_seed=fail.seed, kind=kind, opt_level=fail.opt
            )
        return reports[source]

    fail.minimized, fail.checks = minimize(
        fail.source, lambda s: report_of(s).key() == fail.key, max_checks=max_checks
    )
    # the header describes the reduced program's failure, not the original's
    reduced = report_of(fail.minimized)
    if reduced.key() == fail.key:
        fail.report = reduced


def corpus_header(fail: Failure) -> str:
    """The comment block a corpus file starts with (read back by ``read_header``)."""
    first = next((f for f in fail.report.findings if f.cls == fail.report.outcome), None)
    lines = [
        f"# fuzz: class={fail.report.outcome} key={fail.key.replace(' ', '_')} seed={fail.seed} input_seed={fail.seed} opt={fail.opt}",
    ]
    if first is not None:
        lines.append(f"# where: {first.where[:300]}")
        for d in first.detail.splitlines()[-4:]:
            lines.append(f"# {d[:300]}")
    elif fail.report.detail:
        lines.append(f"# {fail.report.detail[:300]}")
    return "\n".join(lines) + "\n"


def read_header(text: str) -> dict[str, str]:
    """The ``key=value`` fields of a corpus file's first line."""
    first = text.splitlines()[0]
    assert first.startswith("# fuzz:"), "a fuzz corpus file starts with '# fuzz: ...'"
    return dict(item.split("=", 1) for item in first[len("# fuzz:") :].split())


def write_failures(camp: Campaign, out: Path) -> list[Path]:
    """Write every minimized failure (one file per distinct minimized source) and
    ``summary.json`` (all failing seeds with their keys) under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    seen: set[str] = set()
    for fail in camp.failures:
        if fail.minimized is None or fail.minimized in seen:
            continue
        seen.add(fail.minimized)
        cls = fail.report.outcome
        path = out / f"{cls}_{fail.seed}.py"
        path.write_text(corpus_header(fail) + fail.minimized)
        written.append(path)
    summary = {
        "counts": dict(camp.counts),
        "constructs": dict(camp.constructs),
        "keys": dict(camp.keys),
        "programs": camp.programs,
        "programs_per_opt": {f"O{o}": n for o, n in sorted(camp.by_opt.items())},
        "failing_seeds": [{"seed": f.seed, "key": f.key, "opt": f.opt} for f in camp.failures],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return written
