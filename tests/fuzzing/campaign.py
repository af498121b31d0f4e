"""A fuzzing campaign: generate, check, count by outcome class, minimize the failures.

Shared by ``scripts/fuzz.py`` (long runs) and ``tests/fuzzing/test_fuzz.py`` (the short CI run).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzzing.array_generator import generate_arrays
from tests.fuzzing.generator import generate
from tests.fuzzing.minimize import minimize
from tests.fuzzing.oracle import FAILURES, Report
from tests.fuzzing.runner import Runner


def program_for(seed: int, profile: str, size: int = 10) -> str:
    """The module of ``seed`` under a generator profile: ``full``, ``avoid-known`` or
    ``mixed`` (odd seeds avoid the known bug classes, even seeds do not), or ``arrays``
    (whole-array NumPy modules, ``array_generator``, checked by ``array_oracle``)."""
    if profile == "arrays":
        return generate_arrays(seed, size)
    avoid = profile == "avoid-known" or (profile == "mixed" and seed % 2 == 1)
    return generate(seed, size, avoid_known=avoid)


@dataclass
class Failure:
    seed: int
    key: str
    report: Report
    source: str
    minimized: str | None = None
    checks: int = 0


@dataclass
class Campaign:
    """Counts and failures of a run (``counts`` per outcome class)."""

    counts: Counter[str] = field(default_factory=Counter)
    constructs: Counter[str] = field(default_factory=Counter)  # compile errors by construct
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
            f"{self.deriv_checks}, skipped inputs {self.skipped}, {self.seconds:.0f} s"
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
    opt_level: int = 2,
    size: int = 10,
    deadline: float | None = None,
    minimize_per_key: int = 0,
    minimize_checks: int = 200,
    on_program: Callable[[int, Report], None] | None = None,
    timeout: float = 120.0,
) -> Campaign:
    """Check the programs of ``seeds`` (until ``deadline``, a ``time.monotonic()`` value);
    minimize the first ``minimize_per_key`` failures of each key. A program whose check
    takes longer than ``timeout`` seconds (wall clock) is a ``timeout``."""
    camp = Campaign()
    start = time.monotonic()
    kind = "arrays" if profile == "arrays" else "scalar"
    with Runner(opt_level=opt_level, timeout=timeout) as runner:
        for seed in seeds:
            if deadline is not None and time.monotonic() > deadline:
                break
            source = program_for(seed, profile, size)
            report = runner.check(source, input_seed=seed, kind=kind)
            camp.programs += 1
            camp.counts[report.outcome] += 1
            camp.calls += report.calls
            camp.deriv_checks += report.deriv_checks
            camp.skipped += report.skipped
            if report.outcome == "compile_error":
                camp.constructs[report.detail] += 1
            if report.outcome in FAILURES or report.outcome == "oracle_error":
                key = report.key()
                camp.keys[key] += 1
                fail = Failure(seed, key, report, source)
                camp.failures.append(fail)
                if camp.keys[key] <= minimize_per_key:
                    fail.minimized, fail.checks = minimize(
                        source,
                        lambda s, k=key, sd=seed: (
                            runner.check(s, input_seed=sd, kind=kind).key() == k
                        ),
                        max_checks=minimize_checks,
                    )
                    # the header describes the reduced program's failure, not the original's
                    reduced = runner.check(fail.minimized, input_seed=seed, kind=kind)
                    if reduced.key() == key:
                        fail.report = reduced
            if on_program is not None:
                on_program(seed, report)
    camp.seconds = time.monotonic() - start
    return camp


def corpus_header(fail: Failure, opt_level: int) -> str:
    """The comment block a corpus file starts with (read back by ``read_header``)."""
    first = next((f for f in fail.report.findings if f.cls == fail.report.outcome), None)
    lines = [
        f"# fuzz: class={fail.report.outcome} key={fail.key.replace(' ', '_')} seed={fail.seed} input_seed={fail.seed} opt={opt_level}",
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


def write_failures(camp: Campaign, out: Path, opt_level: int) -> list[Path]:
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
        path.write_text(corpus_header(fail, opt_level) + fail.minimized)
        written.append(path)
    summary = {
        "counts": dict(camp.counts),
        "constructs": dict(camp.constructs),
        "keys": dict(camp.keys),
        "programs": camp.programs,
        "failing_seeds": [{"seed": f.seed, "key": f.key} for f in camp.failures],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return written
