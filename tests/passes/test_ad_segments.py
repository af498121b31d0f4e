"""``ad-reverse{... budget=B}``: long loops in checkpointed segments (passes/ad/segments.py)
on IR text.

FileCheck pins the shape of the transformation — the outlined segment function, the
run-time choice between the loop as written and the segmented loop, the checkpoint
wrappers that push a segment's entry state and recompute it — and the interpreter runs
the gradient against the whole-tape one (budget 0) and central finite differences, and
counts the tape's peak bytes: they grow like sqrt(n) segmented, like n taped whole.
"""

from __future__ import annotations

from typing import Any

import pytest

from gradc.compiler.codegen.lower import value_type
from gradc.compiler.codegen.tape import entry_size
from gradc.compiler.ir import interp, ops
from gradc.compiler.ir.core import Instruction, Module
from tests.filecheck_util import filecheck
from tests.passes.ad_oracle import fd_gradient, run_passes
from tests.passes.test_ad_forward import POWER_LOOP

#: A while loop (its trip count is not known at entry): taped whole, whatever the budget.
WHILE_LOOP = """
func @f(%x: f64) -> f64 {
^entry:
  %one = const 1.0 : f64
  br ^header
^header:
  %p = phi [^entry: %x], [^body: %p.next] : f64
  %c = cmp gt %p, %one : i1
  condbr %c, ^body, ^exit
^body:
  %h = const 0.5 : f64
  %p.next = mul %p, %h : f64
  br ^header
^exit:
  ret %p
}
"""


def test_a_range_loop_is_outlined_and_chosen_at_entry() -> None:
    _, out = run_passes(POWER_LOOP, "ad-reverse{fn=f wrt=x budget=1}")
    filecheck(
        out,
        """
        CHECK: func @f.seg.header(%i: i64, %p: f64, %n: i64, %x: f64) -> tuple[i64,f64]
        CHECK: ^header:
        CHECK-NEXT: phi [^entry: %i]
        CHECK: cmp lt %{{.*}}, %n
        CHECK: condbr %c, ^body, ^seg.done
        CHECK: ^seg.done:
        CHECK-NEXT: tuple(
        CHECK: func @f.fwd.0(
        CHECK: ^seg.entry:
        CHECK: math sqrt
        CHECK: [[SMALL:%[0-9]+]] = cmp le
        CHECK-NEXT: condbr [[SMALL]], ^seg.entry.to.header, ^seg.entry.to.seg.head
        CHECK: ^seg.body:
        CHECK: [[HI:%[0-9]+]] = min
        CHECK-NEXT: call @f.seg.header.fwd.1_3(%i.1, %p.1, [[HI]], %x, %tape)
        CHECK: func @f.rev.0(
        CHECK: call @f.seg.header.rev.1_3(%tape,
        CHECK: func @f.seg.header.fwd.1_3(
        CHECK-NEXT: ^entry:
        CHECK-NEXT: tapepush %tape, %i
        CHECK-NEXT: tapepush %tape, %p
        CHECK-NEXT: tapepush %tape, %n
        CHECK-NEXT: tapepush %tape, %x
        CHECK-NEXT: call @f.seg.header(%i, %p, %n, %x)
        CHECK: func @f.seg.header.rev.1_3(
        CHECK: call @f.seg.header.fwd.1_3.taped(
        CHECK-NEXT: call @f.seg.header.rev.1_3.taped(
        """,
    )


def test_budget_zero_and_while_loops_are_taped_whole() -> None:
    _, out = run_passes(POWER_LOOP, "ad-reverse{fn=f wrt=x}")
    assert ".seg." not in out
    _, out = run_passes(WHILE_LOOP, "ad-reverse{fn=f wrt=x budget=1}")
    assert ".seg." not in out


def _peak_tape(monkeypatch: pytest.MonkeyPatch, module: Module, args: list[Any]) -> tuple[Any, int]:
    """``d_f(*args)`` in the interpreter and the most bytes the tape held at once."""
    held, peak = [0], [0]
    lookup = interp.RULES.lookup

    def counting(rule: Any, inst: Instruction) -> Any:
        def run(m: Any, i: Instruction, vals: list[object]) -> object:
            t = i.value.type if isinstance(i, ops.TapePush) else i.type
            held[0] += entry_size(value_type(t)) * (1 if isinstance(i, ops.TapePush) else -1)
            peak[0] = max(peak[0], held[0])
            return rule(m, i, vals)

        return run

    def counting_lookup(inst: Instruction) -> Any:
        rule = lookup(inst)
        return counting(rule, inst) if isinstance(inst, ops.TapePush | ops.TapePop) else rule

    with monkeypatch.context() as patch:
        patch.setattr(interp.RULES, "lookup", counting_lookup)
        result = interp.run_function(module, "d_f", args)
    return result, peak[0]


def test_gradient_unchanged_and_tape_grows_like_sqrt_n(monkeypatch: pytest.MonkeyPatch) -> None:
    seg, _ = run_passes(POWER_LOOP, "ad-reverse{fn=f wrt=x budget=1}")
    whole, _ = run_passes(POWER_LOOP, "ad-reverse{fn=f wrt=x}")
    peaks: dict[tuple[str, int], int] = {}
    for n in (0, 1, 2, 7, 100, 1600):
        x = 1.0 + 1.0 / (n + 1)
        got, peaks[("seg", n)] = _peak_tape(monkeypatch, seg, [x, n])
        want, peaks[("whole", n)] = _peak_tape(monkeypatch, whole, [x, n])
        assert got == pytest.approx(want, rel=1e-13)
        fd = fd_gradient(seg, "f", [x, n], 0)
        assert got == pytest.approx(fd, rel=1e-6, abs=1e-9)
    # 16x the steps: the whole tape 16x, the segmented one about 4x (sqrt)
    assert peaks[("whole", 1600)] > 15 * peaks[("whole", 100)]
    assert peaks[("seg", 1600)] < 5 * peaks[("seg", 100)]
    assert peaks[("seg", 1600)] < peaks[("whole", 1600)] / 5
