"""Fuzz gradc with random valid programs (tests/fuzzing): counts per outcome class, and
minimized reproducers of the failures written to --out.

    python scripts/fuzz.py --minutes 10 --seed 0 --out build/fuzz
    python scripts/fuzz.py --count 300 --profile avoid-known --opt 0
    python scripts/fuzz.py --count 3000 --profile arrays --size 6 --opt 0,0,2

Run from the repository root (the fuzzer lives in the test tree: ``tests.fuzzing``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzzing.campaign import run, write_failures  # noqa: E402
from tests.fuzzing.oracle import Report  # noqa: E402


def _levels(text: str) -> tuple[int, ...]:
    levels = tuple(int(t) for t in text.split(","))
    if not levels or any(o not in (0, 1, 2, 3) for o in levels):
        raise argparse.ArgumentTypeError(f"optimisation levels are 0-3, not {text!r}")
    return levels


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--minutes", type=float, default=5.0, help="stop after this long (default 5)")
    p.add_argument("--count", type=int, default=None, help="stop after this many programs")
    p.add_argument(
        "--seed", type=int, default=0, help="first seed (programs use seed, seed+1, ...)"
    )
    p.add_argument(
        "--out", type=Path, default=Path("build/fuzz"), help="where minimized failures go"
    )
    p.add_argument(
        "--opt",
        type=_levels,
        default=(2,),
        help="LLVM optimisation level, or a cycle of levels: '0,0,2' builds the program "
        "of seed s at the level of index s %% 3 (default 2)",
    )
    p.add_argument(
        "--profile",
        default="mixed",
        choices=("full", "avoid-known", "mixed", "arrays", "arrays-more"),
        help="avoid-known leaves out the constructs of #18's open bugs; mixed alternates",
    )
    p.add_argument("--minimize", type=int, default=1, help="failures minimized per distinct key")
    p.add_argument("--minimize-checks", type=int, default=200, help="compilations per minimization")
    p.add_argument("--seeds", default=None, help="comma-separated seeds to run instead")
    p.add_argument("-v", "--verbose", action="store_true", help="print every failing seed")
    p.add_argument("--size", type=int, default=10, help="statements per function body (default 10)")
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds (wall) per program before it counts as a timeout (default 120; "
        "raise it on a loaded machine)",
    )
    p.add_argument(
        "--progress", type=int, default=0, help="print the counts every N programs (0: never)"
    )
    args = p.parse_args(argv)

    deadline = time.monotonic() + args.minutes * 60
    seeds: Iterable[int] = (
        range(args.seed, args.seed + args.count) if args.count else itertools.count(args.seed)
    )
    if args.seeds:
        seeds = [int(s) for s in args.seeds.split(",")]

    args.out.mkdir(parents=True, exist_ok=True)
    log = (args.out / "failures.jsonl").open("a")

    seen: Counter[str] = Counter()
    checked: Counter[str] = Counter()
    # SIGTERM ends the run after the program being checked, with its summary and files
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))

    def progress(seed: int, report: Report) -> None:
        seen[report.outcome] += 1
        checked.update(calls=report.calls, deriv_checks=report.deriv_checks)
        if args.progress and seen.total() % args.progress == 0:
            print(
                f"{seen.total()} programs (last seed {seed}), {dict(checked)}: {dict(seen)}",
                flush=True,
            )
        if report.outcome in ("ok", "compile_error"):
            return
        log.write(
            json.dumps({"seed": seed, "key": report.key(), "report": report.to_json()}) + "\n"
        )
        log.flush()
        if args.verbose:
            print(f"seed {seed}: {report.key()}", flush=True)

    camp = run(
        seeds,
        profile=args.profile,
        opt_level=args.opt,
        size=args.size,
        deadline=deadline,
        minimize_per_key=args.minimize,
        minimize_checks=args.minimize_checks,
        on_program=progress,
        timeout=args.timeout,
        stop=lambda: bool(stopping),
    )
    print(camp.summary())
    written = write_failures(camp, args.out)
    print(f"{len(written)} minimized failures in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
