"""The ``arrays-more`` fuzz profile (tests/fuzzing/array_generator_more.py): products,
sorting, joins, fancy indexing and ``np.linalg`` mixed into the array generator's
modules, checked by the same oracles (tests/fuzzing/array_oracle.py).

* ``test_more_modules_run_under_numpy``: deterministic modules that NumPy runs;
* ``test_more_generator_covers_the_constructs``: every construct of ``MORE_CONSTRUCTS``
  occurs in the first 200 modules;
* ``test_short_run_more``: the few modules of MORE_SHORT_RUN that together hold its
  constructs (``covering_seeds``), compiled and checked; ``test_short_run_more_all``
  (slow) all of them.

Longer runs: ``python scripts/fuzz.py --profile arrays-more --size 6 --minutes 10``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.fuzzing import array_oracle
from tests.fuzzing.array_generator_more import MORE_CONSTRUCTS, generate_arrays_more
from tests.fuzzing.campaign import run
from tests.fuzzing.replay import check_array_module_runs, check_short_run, covering_seeds

MORE_SHORT_RUN = range(3000, 3030)
#: The default run: the seeds of MORE_SHORT_RUN covering MORE_CONSTRUCTS.
MORE_QUICK_RUN = covering_seeds(
    MORE_SHORT_RUN, lambda s: generate_arrays_more(s, 6), MORE_CONSTRUCTS, most=8
)


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_more_modules_run_under_numpy(seed: int) -> None:
    """Deterministic, and every export runs under NumPy raising only ValueError (NumPy's
    LinAlgError is one) or IndexError, the errors the generator keeps on purpose, or
    ZeroDivisionError (Python scalars: ``s // s`` of a bool parameter that is False)."""
    source = generate_arrays_more(seed)
    assert source == generate_arrays_more(seed)
    check_array_module_runs(source, seed, (ValueError, IndexError, ZeroDivisionError))


def test_more_generator_covers_the_constructs() -> None:
    text = "\n".join(generate_arrays_more(s) for s in range(200))
    assert [c for c in MORE_CONSTRUCTS if c not in text] == []


def test_short_run_more() -> None:
    camp = run(MORE_QUICK_RUN, profile="arrays-more", opt_level=0, size=6)
    check_short_run(camp, MORE_QUICK_RUN, {})
    assert camp.counts["ok"] >= 1, camp.summary()


@pytest.mark.slow
def test_short_run_more_all() -> None:
    camp = run(MORE_SHORT_RUN, profile="arrays-more", opt_level=0, size=6)
    check_short_run(camp, MORE_SHORT_RUN, {})


def test_documented_exception_forms_are_the_same_exception() -> None:
    """gradc's documented forms of NumPy's errors (seeds 620227, 620243): LinAlgError
    raised as ValueError, a shape's sizes an error record cannot carry shown as ``...``;
    any other difference in type, message or size stays one."""
    same = array_oracle._same_exception
    numpy_dot = ValueError("shapes (0,0) and (1,0) not aligned: 0 (dim 1) != 1 (dim 0)")
    assert same(
        numpy_dot, ValueError("shapes (0,0) and (1,...) not aligned: 0 (dim 1) != 1 (dim 0)")
    )
    assert not same(
        numpy_dot, ValueError("shapes (0,0) and (1,...) not aligned: 0 (dim 1) != 2 (dim 0)")
    )
    assert not same(numpy_dot, IndexError(str(numpy_dot)))
    singular = np.linalg.LinAlgError("Matrix is not positive definite")
    assert same(singular, ValueError("Matrix is not positive definite"))
    assert not same(singular, ValueError("Singular matrix"))
    assert not same(ValueError("Singular matrix"), np.linalg.LinAlgError("Singular matrix"))
