"""The reverse-mode tape planner (passes/ad/taping.py, loops.py, memory.py): what the
forward sweep pushes, measured as tape bytes per call by running the derivative IR in
the reference interpreter, and the analyses it rests on.

Each optimisation is checked against the same derivative with it switched off
(:class:`TapeOptions`): the bytes a loop of ``n`` iterations pushes grow with ``n`` by
exactly what the optimisation saves. The gradients themselves are checked against
finite differences by the AD corpus (tests/ad/corpus/tape_plans.py among others); here
every measured derivative is also compared with the one derived with all strategies off.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradc.compiler.codegen.lower import value_type
from gradc.compiler.codegen.tape import entry_size
from gradc.compiler.frontend.module_scan import scan_module
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.infer import infer_module
from gradc.compiler.ir import interp, ops
from gradc.compiler.ir.core import Instruction, Module
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.verifier import verify_module
from gradc.passes.ad.loops import LoopForest
from gradc.passes.ad.memory import MemoryFacts, callee_writes
from gradc.passes.ad.reverse_exports import reverse_export
from gradc.passes.ad.taping import TapeOptions

#: Each gc.collect() walks only what the test made (tests/conftest.py ``frozen_heap``).
pytestmark = pytest.mark.usefixtures("frozen_heap")

ALL = TapeOptions(hoist=True, count_loops=True, reload=True, recompute=True)
NONE = TapeOptions(hoist=False, count_loops=False, reload=False, recompute=False)


def derive(tmp_path: Path, source: str, name: str, wrt: list[int], options: TapeOptions) -> Module:
    """The typed module of ``source`` with ``d_<name>`` (a grad wrt ``wrt``) added."""
    path = tmp_path / "m.py"
    path.write_text("import math\nimport numpy as np\nimport gradc\nfrom gradc import f64, i64\n\n")
    path.write_text(path.read_text() + textwrap.dedent(source))
    info = scan_module(SourceFile.read(path), "m")
    module = infer_module(info)
    fn = module.functions[name]
    reverse_export(module, f"d_{name}", "grad", fn, wrt, True, fn.loc, options)
    verify_module(module)
    return module


def run_counting(monkeypatch: pytest.MonkeyPatch, module: Module, name: str, args: list[Any]):
    """``(result, bytes pushed)`` of running export ``name`` in the interpreter."""
    pushed = [0]
    lookup = interp.RULES.lookup

    def counting(m: Any, inst: Instruction, vals: list[object]) -> object:
        assert isinstance(inst, ops.TapePush)
        pushed[0] += entry_size(value_type(inst.value.type))
        return lookup(inst)(m, inst, vals)

    def counting_lookup(inst: Instruction) -> Any:
        return counting if isinstance(inst, ops.TapePush) else lookup(inst)

    with monkeypatch.context() as patch:
        patch.setattr(interp.RULES, "lookup", counting_lookup)
        result = interp.run_function(module, name, args)
    return result, pushed[0]


def bytes_per_iteration(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    name: str,
    wrt: list[int],
    make_args: Any,
    options: TapeOptions,
) -> tuple[float, int]:
    """Extra tape bytes per extra iteration (``make_args(n)`` for n = 4 and 12), and the
    bytes of the n = 4 call; the gradients must match those derived with no strategy."""
    module = derive(tmp_path, source, name, wrt, options)
    plain = derive(tmp_path, source, name, wrt, NONE)
    sizes = []
    for n in (4, 12):
        got, size = run_counting(monkeypatch, module, f"d_{name}", make_args(n))
        want, _ = run_counting(monkeypatch, plain, f"d_{name}", make_args(n))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-13)
        sizes.append(size)
    return (sizes[1] - sizes[0]) / 8, sizes[0]


RECURRENCE = """
@gradc.export
def recurrence(x: f64[:], w: f64, u: f64) -> f64:
    h = 0.0
    s = 0.0
    for i in range(len(x)):
        h = math.tanh(w * h + u * x[i])
        s += h * h
    return s
"""


def _rec_args(n: int) -> list[Any]:
    return [np.linspace(-1.0, 1.0, n), 0.7, 0.3]


@pytest.mark.parametrize(
    ("options", "per_iteration"),
    [
        # h and tanh's result (what no strategy can avoid), and x[i] (the mul's partner
        # of u): the block pushes anyway, so x[i] is not loaded again (taping.py)
        (ALL, 24),
        # + the index i of the load's shadow and a token per trip instead of a count
        (TapeOptions(hoist=True, count_loops=False, reload=True, recompute=True), 40),
        # + w and u, pushed per iteration instead of once
        (NONE, 56),
    ],
)
def test_recurrence_tape_per_iteration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: TapeOptions, per_iteration: int
) -> None:
    grow, _ = bytes_per_iteration(
        tmp_path, monkeypatch, RECURRENCE, "recurrence", [0, 1, 2], _rec_args, options
    )
    assert grow == per_iteration


DOT = """
@gradc.export
def dot(a: f64[:], b: f64[:]) -> f64:
    s = 0.0
    for i in range(len(a)):
        s += a[i] * b[i]
    return s
"""


def test_loads_of_unwritten_arrays_are_not_taped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def args(n: int) -> list[Any]:
        return [np.arange(n, dtype=float), np.ones(n)]

    grow, _ = bytes_per_iteration(tmp_path, monkeypatch, DOT, "dot", [0, 1], args, ALL)
    assert grow == 0  # O(1) tape for a loop of n iterations
    grow, _ = bytes_per_iteration(
        tmp_path, monkeypatch, DOT, "dot", [0, 1], args, TapeOptions(True, True, False, True)
    )
    assert grow == 16  # a[i] and b[i]


TRIANGLE = """
@gradc.export
def packed(x: f64[:], L: f64[:], d: i64) -> f64:
    s = 0.0
    for r in range(d):
        v = x[r]
        for c in range(r):
            idx = c * (2 * d - c - 1) // 2 + (r - c - 1)
            v += L[idx] * x[c]
        s += v * v
    return s
"""


def test_index_arithmetic_is_recomputed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    x, L = np.linspace(0.5, 1.5, 3), np.linspace(-1.0, 1.0, 3)
    sizes = {}
    for label, options in (("all", ALL), ("no-recompute", TapeOptions(True, True, True, False))):
        module = derive(tmp_path, TRIANGLE, "packed", [0, 1], options)
        plain = derive(tmp_path, TRIANGLE, "packed", [0, 1], NONE)
        for d in (2, 3):
            got, sizes[label, d] = run_counting(monkeypatch, module, "d_packed", [x, L, d])
            want, _ = run_counting(monkeypatch, plain, "d_packed", [x, L, d])
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-13)
    # d = 2 -> 3: one more outer iteration (v: 8 bytes; the inner loop's trip count is
    # r, rebuilt in the reverse sweep) and two more inner ones, which push nothing: idx is
    # recomputed, and then L[idx] and x[c] are loaded again (the reload wraps a negative
    # index as the forward elemaddr did)
    assert sizes["all", 3] - sizes["all", 2] == 8
    # without recomputation idx is pushed, the block pushes anyway, and so L[idx] and x[c]
    # are pushed too
    assert sizes["no-recompute", 3] - sizes["no-recompute", 2] == 8 + 2 * 24


BACKWARDS = """
@gradc.export
def backwards(x: f64[:], L: f64[:], d: i64) -> f64:
    s = 0.0
    for r in range(d):
        for c in range(r):
            s += L[c - r] * x[c] * x[c]
    return s
"""


def test_reload_at_a_negative_index_wraps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    x, L = np.linspace(0.5, 1.5, 4), np.linspace(-1.0, 1.0, 4)
    module = derive(tmp_path, BACKWARDS, "backwards", [0, 1], ALL)
    plain = derive(tmp_path, BACKWARDS, "backwards", [0, 1], NONE)
    sizes = {}
    for d in (3, 4):
        got, sizes[d] = run_counting(monkeypatch, module, "d_backwards", [x, L, d])
        want, _ = run_counting(monkeypatch, plain, "d_backwards", [x, L, d])
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-13)
    # d = 3 -> 4: three more inner iterations, which push nothing (L[c - r] < 0 reloaded)
    assert sizes[4] == sizes[3]


RANGES = """
@gradc.export
def ranges(x: f64[:], a: i64, n: i64) -> f64:
    s = 0.0
    for r in range(n):
        for c in range(a, r):
            s += x[c] * x[r]
    return s
"""


@pytest.mark.parametrize("a", [0, 1, 2, 5, -2])
def test_range_trip_count_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, a: int
) -> None:
    # the inner loop's trip count is max(r - a, 0): a hoisted, r an induction variable,
    # so nothing is pushed for it; empty ranges (a >= r) and negative starts (x[c]
    # wraps) included. The inner iterations push nothing either: x[c] and x[r] are
    # loaded again (a negative c wrapped as the forward elemaddr did)
    x = np.linspace(0.5, 1.5, 6)
    module = derive(tmp_path, RANGES, "ranges", [0], ALL)
    plain = derive(tmp_path, RANGES, "ranges", [0], NONE)
    sizes = {}
    for n in (4, 5):
        got, sizes[n] = run_counting(monkeypatch, module, "d_ranges", [x, a, n])
        want, _ = run_counting(monkeypatch, plain, "d_ranges", [x, a, n])
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-13)
    assert sizes[5] == sizes[4]


def test_array_written_later_is_taped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = """
    @gradc.export
    def f(x: f64[:]) -> f64:
        y = np.zeros(len(x))
        s = 0.0
        for i in range(len(x)):
            y[i] = x[i] * x[i]
        for i in range(len(x)):
            s += math.sin(y[i])
        for i in range(len(x)):
            y[i] = 0.0
        return s
    """

    def args(n: int) -> list[Any]:
        return [np.linspace(0.1, 1.0, n)]

    grow, _ = bytes_per_iteration(tmp_path, monkeypatch, source, "f", [0], args, ALL)
    # sin's operand y[i] (y is cleared later, so not loaded again), and in the first
    # loop x[i]... which x's own loads do not need: x is never written
    assert grow == 8


def test_loop_forest_nesting_and_exits() -> None:
    module = parse_module(
        """
        func @f(%n: i64) -> i64 {
        ^entry:
          %z = const 0 : i64
          %one = const 1 : i64
          br ^outer
        ^outer:
          %i = phi [^entry: %z], [^outer.latch: %i2] : i64
          %c = cmp lt %i, %n : i1
          condbr %c, ^inner.pre, ^done
        ^inner.pre:
          br ^inner
        ^inner:
          %j = phi [^inner.pre: %z], [^inner: %j2] : i64
          %j2 = add %j, %one : i64
          %d = cmp lt %j2, %i : i1
          condbr %d, ^inner, ^outer.latch
        ^outer.latch:
          %i2 = add %i, %one : i64
          br ^outer
        ^done:
          ret %i
        }
        """
    )
    fn = module.functions["f"]
    forest = LoopForest(fn)
    blocks = {b.label: b for b in fn.blocks}
    outer, inner = forest.loops
    assert outer.header is blocks["outer"] and inner.header is blocks["inner"]
    assert inner.parent is outer and inner.depth == 2
    assert {b.label for b in outer.blocks} == {"outer", "inner.pre", "inner", "outer.latch"}
    assert [lp.header.label for lp in forest.loops_of(blocks["inner"])] == ["outer", "inner"]
    preds = fn.predecessors()
    assert [b.label for b in inner.exit_points(fn, preds)] == ["outer.latch"]
    assert [b.label for b in outer.exit_points(fn, preds)] == ["done"]


ARR = "array[f64,1,A]"


def _memory(text: str, name: str, frozen: frozenset[int]) -> tuple[MemoryFacts, Any]:
    module = parse_module(text.replace("ARR", ARR))
    fn = module.functions[name]
    body = {b: list(b.instructions) for b in fn.blocks}
    return MemoryFacts(fn, body, frozen, callee_writes(module, name)), fn


def test_parameters_may_be_the_same_array() -> None:
    # a load of %a, then a store through %b: the caller may pass one array twice
    facts, fn = _memory(
        """
        func @f(%a: ARR, %b: ARR) -> f64 {
        ^entry:
          %i = const 0 : i64
          %p = elemaddr %a, (%i) : ptr[f64]
          %x = load %p : f64
          %q = elemaddr %b, (%i) : ptr[f64]
          %s = store %q, %x : none
          ret %x
        }
        """,
        "f",
        frozenset({0, 1}),
    )
    (load,) = [i for i in fn.instructions() if isinstance(i, ops.Load)]
    assert not facts.reloadable(load)


def test_frozen_only_when_the_caller_promises() -> None:
    text = """
        func @f(%a: ARR) -> f64 {
        ^entry:
          %i = const 0 : i64
          %p = elemaddr %a, (%i) : ptr[f64]
          %x = load %p : f64
          ret %x
        }
        """
    facts, fn = _memory(text, "f", frozenset({0}))
    (load,) = [i for i in fn.instructions() if isinstance(i, ops.Load)]
    assert facts.reloadable(load)
    facts, fn = _memory(text, "f", frozenset())
    (load,) = [i for i in fn.instructions() if isinstance(i, ops.Load)]
    assert not facts.reloadable(load)


def test_call_argument_overwritten_after_the_call_is_not_frozen() -> None:
    facts, fn = _memory(
        """
        func @g(%t: ARR) -> f64 {
        ^entry:
          %i = const 0 : i64
          %p = elemaddr %t, (%i) : ptr[f64]
          %x = load %p : f64
          ret %x
        }

        func @f(%a: ARR, %b: ARR) -> f64 {
        ^entry:
          %i = const 0 : i64
          %one = const 1.0 : f64
          %x = call @g(%a) : f64
          %y = call @g(%b) : f64
          %q = elemaddr %b, (%i) : ptr[f64]
          %s = store %q, %one : none
          %r = add %x, %y : f64
          ret %r
        }
        """,
        "f",
        frozenset({0, 1}),
    )
    calls = [i for i in fn.instructions() if isinstance(i, ops.Call)]
    # %a may be %b, which is written after both calls
    assert [facts.frozen_args(c) for c in calls] == [frozenset(), frozenset()]


CORPUS = Path(__file__).resolve().parent.parent / "ad" / "corpus" / "tape_plans.py"


def test_taped_arrays_are_released(compile_module: Any) -> None:
    """Arrays pushed once at a loop's exits (several exits: break, return) or per
    iteration (allocated in a loop), and popped into variables of the reverse sweep,
    are released: the runtime's live block count does not move over many calls."""
    import gc

    import gradc

    lib = compile_module(CORPUS)
    x = np.linspace(0.2, 1.1, 5)
    A = np.linspace(0.1, 0.9, 6).reshape(2, 3)
    calls = [
        lambda: lib.d_break_hoisted(x, 0.8, 1.0),  # leaves by break
        lambda: lib.d_break_hoisted(x, 0.8, 100.0),  # leaves by the header
        lambda: lib.d_return_in_nested(A, 1.5),  # returns from the inner loop
        lambda: lib.d_return_in_nested(A, 0.1),
        lambda: lib.d_alloc_in_loop(x, 3),
        lambda: lib.d_helper_reads_temporary(x, 0.5),
        lambda: lib.d_read_then_clear(x),
        lambda: lib.d_strided_range(x, 1, 2),
    ]
    for call in calls:
        call()
    gc.collect()
    before = gradc.runtime_stats()["live"]
    for _ in range(200):
        for call in calls:
            call()
    gc.collect()
    assert gradc.runtime_stats()["live"] == before
