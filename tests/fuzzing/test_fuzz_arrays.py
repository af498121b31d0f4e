"""The whole-array fuzzer (``array_generator`` + ``array_oracle``): its parts, a short
seeded run, and the replay of its reduced findings.

* The generator and the oracle's comparison are tested without compiling anything.
* ``test_short_run_arrays``: ARRAY_QUICK_RUN, the few modules of ARRAY_SHORT_RUN that
  together hold every construct (``covering_seeds``); ``test_short_run_arrays_all``
  (slow): ARRAY_SHORT_RUN modules (fixed seeds, -O0) compiled and
  checked against NumPy (values, dtypes, shapes, argument states, exceptions) and finite
  differences; every outcome must be ``ok`` or a clear compile error, except the seeds of
  ``ARRAY_OPEN_SEEDS`` (open findings, each with its class).
* ``test_array_corpus_replay``: tests/fuzzing/corpus_arrays/*.py must pass; pending/*.py
  are open findings (``xfail(strict=False)``).
* ``test_long_run_arrays`` (slow): ARRAY_LONG_RUN modules.

Longer runs: ``python scripts/fuzz.py --profile arrays --opt 0 --minutes 10``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tests.fuzzing import array_oracle
from tests.fuzzing.array_generator import generate_arrays
from tests.fuzzing.campaign import read_header, run
from tests.fuzzing.replay import (
    check_array_module_runs,
    check_short_run,
    corpus_params,
    covering_seeds,
)
from tests.fuzzing.runner import Runner

CORPUS = Path(__file__).parent / "corpus_arrays"
FIXED = sorted(CORPUS.glob("*.py"))
PENDING = sorted((CORPUS / "pending").glob("*.py"))

ARRAY_SHORT_RUN = range(2000, 2026)
#: What the generator must produce (test_array_generator_covers_the_constructs), and what
#: the default run's few modules cover together.
ARRAY_CONSTRUCTS = (
    "np.where(", "np.sum(", ".sum(", "axis=", "keepdims=True", "::-1", "::2", "[:, ",
    ".T", ".copy()", "] = ", "] += ", "] *= ", " += ", "np.maximum(", "np.sqrt(", " < ",
    " & ", " // ", " % ", " ** ", "f32[", "i64[", "bool[", "(0,", "1)", "gradc.jvp(",
    "gradc.grad(", "gradc.value_and_grad(", "np.mean(", "np.max(", "np.logical_",
    ".clip(", "np.diff(", "np.linalg.norm(", "np.full_like(",
)  # fmt: skip
#: The default run: the seeds of ARRAY_SHORT_RUN covering ARRAY_CONSTRUCTS (a few s).
ARRAY_QUICK_RUN = covering_seeds(
    ARRAY_SHORT_RUN, lambda s: generate_arrays(s, 6), ARRAY_CONSTRUCTS, most=9
)
#: Seeds of the short run that hit open findings, with their outcome class.
ARRAY_OPEN_SEEDS: dict[int, str] = {}
ARRAY_LONG_RUN = range(0, 600)


@pytest.mark.parametrize("seed", range(30))
def test_generated_array_modules_run_under_numpy(seed: int) -> None:
    """Deterministic, and every export runs under NumPy raising only ValueError or
    IndexError (the shape errors the generator keeps on purpose)."""
    source = generate_arrays(seed)
    assert source == generate_arrays(seed)
    check_array_module_runs(source, seed, (ValueError, IndexError))


def test_array_generator_covers_the_constructs() -> None:
    text = "\n".join(generate_arrays(s) for s in range(80))
    for construct in ARRAY_CONSTRUCTS:
        assert construct in text, construct
    tree = ast.parse(text.replace("import numpy as np\n", ""))
    assert tree.body


def test_array_comparison() -> None:
    same = array_oracle.same
    f64 = np.array([1.0, np.nan])
    assert same(f64, f64.copy()) is None
    assert same(f64, f64.astype(np.float32)) is not None  # dtype
    assert same(f64, f64[:1]) is not None  # shape
    assert same(np.array([1, 2]), np.array([1, 3])) is not None
    assert same(np.float64(1.5), 1.5) is None
    assert same(np.float32(0.1), float(np.float32(0.1))) is None
    assert same(np.int64(2), 2.0) is not None  # int vs float
    assert same(np.True_, True) is None and same(np.True_, 1) is not None
    assert same(np.array([1.0]), np.array([1.0 + 1e-6])) is not None


def test_array_inputs_in_every_layout() -> None:
    rng = np.random.default_rng(0)
    spec = {"a": ("i64", (3, 2), "A"), "b": ("bool", (4,), "A")}
    seen = set()
    for _ in range(40):
        for arg in array_oracle.draw(spec, rng):
            arr = arg.make()
            assert np.array_equal(arr, arg.values) and arr.dtype == arg.values.dtype
            seen.add(arg.how)
    assert seen == {"C", "F", "S", "R"}


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    with Runner(opt_level=0, timeout=120) as r:
        yield r


def test_array_quick_run_covers_the_constructs() -> None:
    """The default run's few modules hold every construct the short run's hold."""
    text = "\n".join(generate_arrays(s, 6) for s in ARRAY_QUICK_RUN)
    full = "\n".join(generate_arrays(s, 6) for s in ARRAY_SHORT_RUN)
    assert [c for c in ARRAY_CONSTRUCTS if c in full and c not in text] == []


def test_short_run_arrays() -> None:
    """The default run: ARRAY_QUICK_RUN, the few modules of ARRAY_SHORT_RUN covering its
    constructs."""
    camp = run(ARRAY_QUICK_RUN, profile="arrays", opt_level=0, size=6)
    check_short_run(camp, ARRAY_QUICK_RUN, ARRAY_OPEN_SEEDS)
    assert camp.counts["ok"] >= 1, camp.summary()


@pytest.mark.slow
def test_short_run_arrays_all() -> None:
    camp = run(ARRAY_SHORT_RUN, profile="arrays", opt_level=0, size=6)
    check_short_run(camp, ARRAY_SHORT_RUN, ARRAY_OPEN_SEEDS)
    assert camp.counts["ok"] >= len(ARRAY_SHORT_RUN) // 3, camp.summary()


@pytest.mark.parametrize("path", corpus_params(FIXED, PENDING))
def test_array_corpus_replay(path: Path, runner: Runner) -> None:
    text = path.read_text()
    header = read_header(text)
    report = runner.check(
        text, input_seed=int(header["input_seed"]), kind="arrays", opt_level=int(header["opt"])
    )
    assert report.outcome == "ok", f"{report.outcome}: {report.detail} {report.findings[:2]}"
    assert report.calls > 0


@pytest.mark.slow
@pytest.mark.xfail(strict=False, reason="open findings (tests/fuzzing/corpus_arrays/pending)")
def test_long_run_arrays() -> None:
    camp = run(ARRAY_LONG_RUN, profile="arrays", opt_level=0, size=8)
    assert not camp.failures, camp.summary()
