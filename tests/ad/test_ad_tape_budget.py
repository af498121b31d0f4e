"""Long loops in checkpointed segments (``--tape-budget``, passes/ad/segments.py).

tests/ad/corpus/long_loops.py (and, slow, every other AD corpus module) is built with a
budget of 1 byte, so that every segmentable loop of two or more iterations runs in
segments of about sqrt(n) iterations:
their gradients must equal the whole-tape build's (budget 0) to rounding, central finite
differences, and forward mode (the dot-product test). Which loops are segmented is
checked on the derivative IR; the slow test measures peak RSS of a 10**7-step loop's
gradient in a fresh process.
"""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradc.compiler.options import SUGGESTED_TAPE_BUDGET
from tests.ad.corpus import _harness as H

CORPUS = Path(__file__).parent / "corpus"
LONG = CORPUS / "long_loops.py"
SETTINGS = {"deadline": None, "derandomize": True, "max_examples": 6}


def _build(tmp: Path, source: Path, budget: int) -> Any:
    import gradc
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    out = tmp / f"{source.stem}.{budget}.gradc"
    write_artifact(out, build_module(source, replace(CompilerOptions(), tape_budget=budget)))
    return gradc.load(out)


class _Builds(dict[tuple[str, int], Any]):
    """(corpus module stem, budget) -> its library, built when first asked for."""

    def __init__(self, tmp: Path) -> None:
        super().__init__()
        self.tmp = tmp

    def __missing__(self, key: tuple[str, int]) -> Any:
        self[key] = _build(self.tmp, CORPUS / f"{key[0]}.py", key[1])
        return self[key]


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> _Builds:
    return _Builds(tmp_path_factory.mktemp("tape_budget"))


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, tuple | list):
        return all(_close(x, y) for x, y in zip(a, b, strict=True))
    # to rounding: segments sum an invariant input's adjoint in another order
    return bool(np.allclose(a, b, rtol=1e-9, atol=1e-12))


#: long_loops.py by default; the rest of the corpus (loops.py among it) is slow: two more
#: builds of every module.
CASES = [c for c in H.all_cases() if c.path.stem == "long_loops"]
OTHERS = [c for c in H.all_cases() if c not in CASES]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.path.stem}.{c.name}")
def test_segmented_gradient_equals_taped_fd_and_forward(case: H.Case, builds: Any) -> None:
    _check_segmented(case, builds)


@pytest.mark.slow
@pytest.mark.parametrize("case", OTHERS, ids=lambda c: f"{c.path.stem}.{c.name}")
def test_every_corpus_gradient_is_unchanged_segmented(case: H.Case, builds: Any) -> None:
    _check_segmented(case, builds)


def _check_segmented(case: H.Case, builds: Any) -> None:
    """``d_f`` built with a budget of 1 byte equals the whole-tape build's, central
    finite differences and forward mode, on drawn inputs."""
    seg, whole = builds[(case.path.stem, 1)], builds[(case.path.stem, 0)]

    @settings(**SETTINGS)  # type: ignore[arg-type]
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args = data.draw(H.inputs(case))
        got = getattr(seg, f"d_{case.name}")(*H.copy_args(args))
        want = getattr(whole, f"d_{case.name}")(*H.copy_args(args))
        assert _close(got, want), (args, got, want)
        H.check_reverse(case, seg, args)
        v = data.draw(H.directions(case, args))
        H.check_dot_product(case, seg, args, v)

    check()


def test_an_error_inside_a_segment_is_the_primals(builds: Any) -> None:
    seg = builds[("long_loops", 1)]
    with pytest.raises(ValueError, match="diverged"):
        seg.d_may_raise(90.0, 5)
    assert seg.d_may_raise(0.5, 3) == pytest.approx((1.1**3,), rel=1e-15)


def _segments(wrt_of: dict[str, list[int] | None]) -> list[str]:
    """The segment functions made for ``d_<name>`` of each ``long_loops`` function
    (``wrt`` None: every float parameter), with a budget of 1 byte."""
    from gradc.compiler.frontend.module_scan import scan_module
    from gradc.compiler.frontend.source import SourceFile
    from gradc.compiler.infer import infer_module
    from gradc.passes.ad.reverse_exports import reverse_export
    from gradc.passes.ad.taping import TapeOptions
    from gradc.passes.arrays.lower import run as lower

    module = lower(infer_module(scan_module(SourceFile.read(LONG), "m")))
    for name, wrt in wrt_of.items():
        fn = module.functions[name]
        if wrt is None:
            wrt = [p.index for p in fn.params if "f64" in str(p.type)]
        reverse_export(module, f"d_{name}", "grad", fn, wrt, True, fn.loc, TapeOptions(budget=1))
    return sorted(
        n for n in module.functions if ".seg." in n and ".fwd." not in n and ".rev." not in n
    )


def test_which_loops_are_segmented() -> None:
    names = (
        "recurrence",
        "reads_array",
        "nested",
        "may_raise",
        "while_unknown",
        "with_break",
        "writes_array",
        "calls_helper",
        "clock",
    )
    # nested: the outer loop only; not while_unknown, with_break, writes_array
    assert _segments(dict.fromkeys(names)) == [
        "calls_helper.seg.for.header",
        "clock.seg.for.header",
        "may_raise.seg.for.header",
        "nested.seg.for.header",
        "reads_array.seg.for.header",
        "recurrence.seg.for.header",
    ]


def test_a_segment_call_that_would_activate_an_array_is_not_made() -> None:
    # w outside wrt is not active; a call taking it would make it (and its producer) so
    assert _segments({"reads_array": [0]}) == []
    assert _segments({"reads_array": [0, 1]}) == ["reads_array.seg.for.header"]


#: The peak RSS is the process's VmHWM (kB): getrusage's ru_maxrss keeps the high-water
#: mark of the forking process (pytest's, hundreds of MB) across fork and exec.
PEAK = """\
import json, sys
import gradc
lib = gradc.load(sys.argv[1])
fn = lib.run if sys.argv[2] == "primal" else lib.d_run
result = fn(0.5, 1.1, 10**7)
with open("/proc/self/status") as f:
    peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
print(json.dumps({"result": repr(result), "peak": peak}))
"""

LONG_LOOP = """\
import math
import gradc
from gradc import f64, i64


@gradc.export
def run(x: f64, c: f64, n: i64) -> f64:
    s = 0.0
    for _ in range(n):
        a = math.sin(x * c) + 0.5 * x
        x = a - 0.01 * math.tanh(a * a)
        s = s + x * x
    return s + x


d_run = gradc.grad(run, wrt=("x", "c"))
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
def test_peak_rss_of_a_long_loops_gradient_is_within_twice_the_primals(tmp_path: Path) -> None:
    source = tmp_path / "long_loop.py"
    source.write_text(textwrap.dedent(LONG_LOOP))
    out: dict[str, Any] = {}
    for budget in (0, SUGGESTED_TAPE_BUDGET):
        from gradc.artifacts.store import write_artifact
        from gradc.compiler.driver import build_module
        from gradc.compiler.options import CompilerOptions

        options = CompilerOptions(tape_budget=budget)
        art = tmp_path / f"b{budget}.gradc"
        write_artifact(art, build_module(source, options))
        for which in ("primal", "gradient"):
            proc = subprocess.run(
                [sys.executable, "-c", PEAK, str(art), which],
                capture_output=True,
                text=True,
                check=True,
            )
            out[f"{budget}.{which}"] = json.loads(proc.stdout)
    taped, seg = out["0.gradient"], out[f"{SUGGESTED_TAPE_BUDGET}.gradient"]
    # 32 MiB per loop: within twice the primal's peak; the whole tape is not
    assert seg["peak"] <= 2 * out[f"{SUGGESTED_TAPE_BUDGET}.primal"]["peak"]
    assert taped["peak"] > 2 * out["0.primal"]["peak"]
    got, want = ast.literal_eval(seg["result"]), ast.literal_eval(taped["result"])
    assert all(math.isclose(g, w, rel_tol=1e-9) for g, w in zip(got, want, strict=True))
