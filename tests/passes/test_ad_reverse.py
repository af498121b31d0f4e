"""``ad-reverse``: text in, text out, and the gradient run in the reference interpreter.

Each test parses IR, runs ``ad-reverse{...}`` (verifying before and after), checks with
FileCheck what the reverse mode must get right — what the forward sweep pushes and the
reverse sweep pops (last pushed, first popped), the predecessor and trip-count
bookkeeping, phis of adjoints, no reverse for blocks that raise — and runs the export in
the interpreter (which refuses to pop an empty tape or free a non-empty one) against
central finite differences, or against ``ad-forward``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner

from gradc.cli.opt import opt
from gradc.compiler.ir import interp, ops
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.types import Type
from gradc.passes.ad.rules import AD_RULES
from gradc.passes.ad.rules.base import NoDerivative, Refused, ScalarRule, SweepRule
from gradc.passes.options import PassOptionError
from tests.filecheck_util import filecheck
from tests.passes.ad_oracle import call, close, fd_gradient, run_passes
from tests.passes.test_ad_forward import ARRAY_SUM, BRANCH, CALL, POWER_LOOP, SIN_OF_PRODUCT

RAISES = """
func @f(%x: f64, %y: f64) -> f64 {
^entry:
  %0 = const 0.0 : f64
  %c = cmp lt %x, %0 : i1
  condbr %c, ^bad, ^ok
^bad:
  %1 = mul %x, %y : f64
  raise ValueError "negative"
^ok:
  %r = math sqrt(%x) : f64
  %s = mul %r, %y : f64
  ret %s
}
"""


def tape_types(module: Module, name: str, op: type) -> list[Type]:
    """The types a function pushes (``op`` = TapePush) or pops (TapePop), in order."""
    fn = module.functions[name]
    return [
        inst.value.type if isinstance(inst, ops.TapePush) else inst.type
        for inst in fn.instructions()
        if isinstance(inst, op)
    ]


def test_straight_line_pops_what_the_forward_sweep_pushed_last_first() -> None:
    module, out = run_passes(SIN_OF_PRODUCT, "ad-reverse{fn=f wrt=x,y}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.fwd.0_1(%x: f64, %y: f64, %tape: tape) -> f64
        CHECK: %0 = mul %x, %y
        CHECK-NEXT: %1 = math sin(%0)
        CHECK-NEXT: tapepush %tape, %y
        CHECK-NEXT: tapepush %tape, %x
        CHECK-NEXT: tapepush %tape, %0
        CHECK-NEXT: ret %1
        CHECK-LABEL: func @f.rev.0_1(%tape: tape, %adjoint: f64) -> tuple[f64,f64]
        CHECK: %[[P:[0-9]+]] = tapepop %tape : f64
        CHECK-NEXT: %[[X:[0-9]+]] = tapepop %tape : f64
        CHECK-NEXT: %[[Y:[0-9]+]] = tapepop %tape : f64
        CHECK: math ieee_cos(%[[P]])
        CHECK-DAG: mul %{{[0-9]+}}, %[[Y]]
        CHECK-DAG: mul %{{[0-9]+}}, %[[X]]
        CHECK: ^exit:
        CHECK-NEXT: tuple(
        CHECK-LABEL: func @d_f(%x: f64, %y: f64) -> tuple[f64,f64] export
        CHECK-NEXT: ^entry:
        CHECK-NEXT: %tape = tapenew : tape
        CHECK-NEXT: %0 = call @f.fwd.0_1(%x, %y, %tape) : f64
        CHECK-NEXT: %1 = const 1.0 : f64
        CHECK-NEXT: %2 = call @f.rev.0_1(%tape, %1) : tuple[f64,f64]
        CHECK-NEXT: tapefree %tape
        """,
    )
    pushed = tape_types(module, "f.fwd.0_1", ops.TapePush)
    assert tape_types(module, "f.rev.0_1", ops.TapePop) == pushed[::-1]
    args = [0.7, -1.3]
    close(call(module, "d_f", args), tuple(fd_gradient(module, "f", args, i) for i in (0, 1)))


def test_value_and_grad_returns_the_forward_sweeps_value() -> None:
    module, out = run_passes(CALL, "ad-reverse{fn=f wrt=y kind=value_and_grad name=vg}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @vg(%x: f64, %y: f64) -> tuple[f64,f64] export
        CHECK: %[[V:[0-9]+]] = call @f.fwd.1(%x, %y, %tape) : f64
        CHECK: %[[G:[0-9]+]] = call @f.rev.1(%tape, %{{[0-9]+}}) : tuple[f64]
        CHECK-NEXT: tapefree %tape
        CHECK-NEXT: %[[D:[0-9]+]] = extract %[[G]], 0
        CHECK-NEXT: tuple(%[[V]], %[[D]]) : tuple[f64,f64]
        """,
    )
    args = [1.5, 0.5]
    close(call(module, "vg", args), (call(module, "f", args), fd_gradient(module, "f", args, 1)))


def test_callees_get_their_own_sweeps_on_the_callers_tape() -> None:
    module, out = run_passes(CALL, "ad-reverse{fn=f wrt=x,y}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.fwd.0_1(%x: f64, %y: f64, %tape: tape)
        CHECK-NEXT: ^entry:
        CHECK-NEXT: %0 = call @g.fwd.0(%x, %tape) : f64
        CHECK-NEXT: %1 = add %0, %y
        CHECK-NEXT: %2 = call @g.fwd.0(%1, %tape) : f64
        CHECK-LABEL: func @f.rev.0_1(%tape: tape, %adjoint: f64)
        CHECK: call @g.rev.0(%tape, %adjoint) : tuple[f64]
        CHECK: call @g.rev.0(%tape, %{{[0-9]+}}) : tuple[f64]
        CHECK-LABEL: func @g.fwd.0(%u: f64, %tape: tape) -> f64 source_name "g"
        CHECK: tapepush
        CHECK-LABEL: func @g.rev.0(%tape: tape, %adjoint: f64) -> tuple[f64] source_name "g"
        CHECK: tapepop
        """,
    )
    pushed = tape_types(module, "g.fwd.0", ops.TapePush)
    assert tape_types(module, "g.rev.0", ops.TapePop) == pushed[::-1]
    args = [1.5, 0.5]
    close(call(module, "d_f", args), tuple(fd_gradient(module, "f", args, i) for i in (0, 1)))


def test_counted_loop_tapes_its_trip_count_and_adjoints_meet_in_phis() -> None:
    module, out = run_passes(POWER_LOOP, "ad-reverse{fn=f wrt=x}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.fwd.0(
        CHECK: ^header:
        CHECK: %trip = phi [^entry: %{{[0-9]+}}], [^body: %[[NEXT:[0-9]+]]] : i64
        CHECK: ^body:
        CHECK: %[[NEXT]] = add %trip,
        CHECK-NEXT: tapepush %tape, %p
        CHECK-NEXT: br ^header
        CHECK: ^exit:
        CHECK: tapepush %tape, %trip
        CHECK-NEXT: ret %p
        CHECK-LABEL: func @f.rev.0(
        CHECK: ^rev.header:
        CHECK-DAG: %adj.{{[0-9.]+}} = phi [^rev.exit: %adjoint], [^rev.body: %{{[0-9]+}}] : f64
        CHECK-DAG: %[[K:primal.[0-9]+]] = phi [^rev.exit: %[[TRIP:[0-9]+]]], [^rev.body: %[[DEC:[0-9]+]]] : i64
        CHECK: %[[DEC]] = sub %[[K]],
        CHECK: cmp le %[[K]],
        CHECK: ^rev.body:
        CHECK-NEXT: tapepop %tape : f64
        CHECK: ^rev.exit:
        CHECK-NEXT: %[[TRIP]] = tapepop %tape : i64
        CHECK-NOT: %which
        """,
    )
    for n in (0, 1, 5):
        close(call(module, "d_f", [1.1, n]), fd_gradient(module, "f", [1.1, n], 0))


def test_without_trip_counts_each_iteration_pushes_its_predecessor() -> None:
    module, out = run_passes(POWER_LOOP, "ad-reverse{fn=f wrt=x tape=hoist,reload,recompute}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.fwd.0(
        CHECK-NOT: %trip
        CHECK: ^body:
        CHECK: %[[ONE:[0-9]+]] = const 1 : i64
        CHECK-NEXT: tapepush %tape, %[[ONE]]
        CHECK-NEXT: br ^header
        CHECK-LABEL: func @f.rev.0(
        CHECK: ^rev.header:
        CHECK: %which = tapepop %tape : i64
        """,
    )
    for n in (0, 1, 5):
        close(call(module, "d_f", [1.1, n]), fd_gradient(module, "f", [1.1, n], 0))


@pytest.mark.parametrize("x", [-0.5, 0.5])
def test_a_join_pops_the_branch_taken_and_phi_adjoints_flow_back(x: float) -> None:
    module, out = run_passes(BRANCH, "ad-reverse{fn=f wrt=x,y}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.fwd.0_1(
        CHECK: ^neg:
        CHECK: %[[ZERO:[0-9]+]] = const 0 : i64
        CHECK-NEXT: tapepush %tape, %[[ZERO]]
        CHECK-NEXT: br ^join
        CHECK: ^pos:
        CHECK: %[[ONE:[0-9]+]] = const 1 : i64
        CHECK-NEXT: tapepush %tape, %[[ONE]]
        CHECK-NEXT: br ^join
        CHECK-LABEL: func @f.rev.0_1(
        CHECK: ^rev.entry:
        CHECK: %adj.{{[0-9.]+}} = phi [^rev.pos: %{{[a-z0-9]+}}], [^rev.neg: %{{[0-9]+}}] : f64
        CHECK: ^rev.join:
        CHECK-NEXT: %which = tapepop %tape : i64
        CHECK: cmp eq %which,
        CHECK: ^rev.join.to.neg:
        CHECK-NEXT: br ^rev.neg
        CHECK: ^rev.join.to.pos:
        CHECK-NEXT: br ^rev.pos
        """,
    )
    args = [x, 0.3]
    close(call(module, "d_f", args), tuple(fd_gradient(module, "f", args, i) for i in (0, 1)))


def test_a_block_that_raises_pushes_nothing_and_has_no_reverse() -> None:
    module, out = run_passes(RAISES, "ad-reverse{fn=f wrt=x,y}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.fwd.0_1(
        CHECK: ^bad:
        CHECK-NEXT: %1 = mul %x, %y
        CHECK-NEXT: raise ValueError "negative"
        CHECK: ^ok:
        CHECK: tapepush
        CHECK-LABEL: func @f.rev.0_1(
        CHECK-NOT: ^rev.bad
        CHECK: ^rev.ok:
        CHECK-NOT: ^rev.bad
        CHECK-LABEL: func @d_f(
        """,
    )
    args = [2.0, 3.0]
    close(call(module, "d_f", args), tuple(fd_gradient(module, "f", args, i) for i in (0, 1)))
    with pytest.raises(ValueError, match="negative"):
        call(module, "d_f", [-2.0, 3.0])


def test_array_adjoints_accumulate_in_shadows() -> None:
    module, out = run_passes(ARRAY_SUM, "ad-reverse{fn=f wrt=a,c}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.fwd.0_2.ro.0.c(%a: array[f64,1,A], %n: i64, %c: f64, %tape: tape)
        CHECK: %t = newarray(%n), %z : array[f64,1,C]
        CHECK: %shadow = newarray(%n), %{{[0-9]+}} : array[f64,1,C]
        CHECK: ^exit:
        CHECK: tapepush %tape, %shadow
        CHECK-LABEL: func @f.rev.0_2.ro.0.c(%d_a: array[f64,1,C], %tape: tape, %adjoint: f64) -> tuple[f64]
        CHECK: ^rev.body:
        CHECK: %[[OFF:[0-9]+]] = elemoffset %d_a,
        CHECK-NEXT: %[[P:[0-9]+]] = addr %d_a, %[[OFF]]
        CHECK-NEXT: %[[OLD:[0-9]+]] = load %[[P]]
        CHECK-NEXT: %[[NEW:[0-9]+]] = add %[[OLD]],
        CHECK-NEXT: store %[[P]], %[[NEW]]
        CHECK: ^rev.exit:
        CHECK: tapepop %tape : array[f64,1,C]
        CHECK-LABEL: func @d_f(%a: array[f64,1,A], %n: i64, %c: f64) -> tuple[array[f64,1,C],f64] export
        CHECK: %d_a = newarray(%{{[0-9]+}}), %{{[0-9]+}} : array[f64,1,C]
        CHECK: call @f.rev.0_2.ro.0.c(%d_a, %tape,
        CHECK: tuple(%d_a,
        """,
    )
    args: list[object] = [np.array([0.5, -1.0, 2.0]), 3, 1.5]
    got = call(module, "d_f", args)
    close(got, (fd_gradient(module, "f", args, 0), fd_gradient(module, "f", args, 2)))


def test_reverse_agrees_with_forward_on_arrays() -> None:
    pipeline = "ad-reverse{fn=f wrt=a,c},ad-forward{fn=f wrt=a,c name=t}"
    module, _ = run_passes(ARRAY_SUM, pipeline)
    a = np.array([0.25, -1.5, 2.0, 0.125])
    grad_a, grad_c = call(module, "d_f", [a, 4, -0.75])  # type: ignore[misc]
    rng = np.random.default_rng(16)
    for _ in range(3):
        da, dc = rng.standard_normal(4), float(rng.standard_normal())
        _, tangent = call(module, "t", [a, 4, -0.75, da, dc])  # type: ignore[misc]
        close(tangent, float(np.dot(grad_a, da)) + grad_c * dc)


def test_switching_the_tape_strategies_off_pushes_more_for_the_same_gradient() -> None:
    fast, fast_out = run_passes(ARRAY_SUM, "ad-reverse{fn=f wrt=a,c}")
    slow, slow_out = run_passes(ARRAY_SUM, "ad-reverse{fn=f wrt=a,c tape=none}")
    filecheck(
        slow_out,
        """
        CHECK-LABEL: func @f.fwd.0_2.ro.0.c(
        CHECK: {{^}}^body:
        CHECK: tapepush %tape, %i
        CHECK-NEXT: tapepush %tape, %c
        CHECK-NEXT: tapepush %tape, %ai
        CHECK-NEXT: tapepush %tape, %shadow
        CHECK-NEXT: tapepush %tape, %ti
        """,
    )
    assert slow_out.count("tapepush") > fast_out.count("tapepush")
    args: list[object] = [np.array([0.5, -1.0, 2.0]), 3, 1.5]
    close(call(slow, "d_f", args), call(fast, "d_f", args))


def test_vjp_of_a_tuple_result_takes_one_cotangent_per_float() -> None:
    text = """
    func @f(%x: f64, %y: f64) -> tuple[f64,f64] {
    ^entry:
      %0 = mul %x, %y : f64
      %1 = div %x, %y : f64
      %2 = tuple(%0, %1) : tuple[f64,f64]
      ret %2
    }
    """
    module, out = run_passes(text, "ad-reverse{fn=f wrt=x,y kind=vjp}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.rev.0_1(%tape: tape, %adjoint: tuple[f64,f64])
        CHECK: extract %adjoint, 0
        CHECK: extract %adjoint, 1
        CHECK-LABEL: func @d_f(%x: f64, %y: f64, %ct_0: f64, %ct_1: f64) -> tuple[f64,f64] export
        CHECK: tuple(%ct_0, %ct_1) : tuple[f64,f64]
        """,
    )
    x, y, ct0, ct1 = 3.0, 0.5, 2.0, -1.0
    # d(ct0·xy + ct1·x/y)
    close(call(module, "d_f", [x, y, ct0, ct1]), (ct0 * y + ct1 / y, ct0 * x - ct1 * x / y**2))


def test_low_level_reverse_accumulates_into_the_callers_shadow() -> None:
    module, out = run_passes(ARRAY_SUM, "ad-reverse{fn=f kind=reverse duplicated=a active=c}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @d_f(%a: array[f64,1,A], %d_a: array[f64,1,A], %n: i64, %c: f64) -> tuple[f64,f64] export
        CHECK: raise ValueError "shadow 'd_a' must have the shape of 'a' (they differ in axis 0)"
        CHECK: tapenew
        CHECK: tapefree
        """,
    )
    a = np.array([0.5, -1.0, 2.0])
    shadow = np.ones(3)
    value, grad_c = interp.run_function(module, "d_f", [a, shadow, 3, 1.5])  # type: ignore[misc]
    assert value == call(module, "f", [a, 3, 1.5])
    close(grad_c, fd_gradient(module, "f", [a, 3, 1.5], 2))
    close(shadow, 1.0 + fd_gradient(module, "f", [a, 3, 1.5], 0))  # type: ignore[operator]


def test_every_rule_gives_its_adjoint() -> None:
    # one rule object per operation holds its adjoint: the transpose of a scalar rule, or
    # the adjoint function of a rule that moves adjoints through shadows, tuples, callees
    sweep_rules = set()
    for cls in AD_RULES.covered():
        rule = AD_RULES.get(cls.__new__(cls))
        assert isinstance(rule, ScalarRule | SweepRule | NoDerivative | Refused), cls
        if isinstance(rule, SweepRule):
            assert callable(rule.adjoint), cls
            sweep_rules.add(cls)
    assert sweep_rules == {
        ops.AtomicAdd,
        ops.ElementAddr,
        ops.Load,
        ops.Store,
        ops.NewArray,
        ops.CopyArray,
        ops.MakeTuple,
        ops.TupleGet,
        ops.Cast,
        ops.Call,
        ops.SliceView,
        ops.Transpose,
        ops.Reshape,
    }


def test_what_ad_refuses_is_a_pass_error() -> None:
    text = """
    func @f(%x: f64) -> i64 {
    ^entry:
      %0 = cast %x : i64
      ret %0
    }
    """
    with pytest.raises(PassError, match=r"gradc\.grad needs 'f' to return a float, not i64"):
        run_passes(text, "ad-reverse{fn=f}")
    with pytest.raises(PassError, match=r"gradc\.Active applies to float scalars"):
        run_passes(ARRAY_SUM, "ad-reverse{fn=f kind=reverse active=a}")


@pytest.mark.parametrize(
    ("spelling", "message"),
    [
        ("ad-reverse{}", "missing option fn"),
        ("ad-reverse{fn=f kind=jvp}", "unknown kind 'jvp'"),
        ("ad-reverse{fn=f tape=hoist,fast}", "unknown taping strategy 'fast'"),
        ("ad-reverse{fn=f kind=reverse wrt=x}", "takes duplicated=/active=, not wrt="),
        ("ad-reverse{fn=f kind=reverse}", "needs a duplicated= or active= parameter"),
        ("ad-reverse{fn=f kind=reverse active=x tape=none}", "tapes with every strategy"),
        ("ad-reverse{fn=f kind=reverse active=x duplicated=x}", "both duplicated and active"),
        ("ad-reverse{fn=f fn=g}", "option 'fn' given twice"),
        ("ad-reverse{fn=f wrt=2}", "'f' has no parameter '2'"),
        ("ad-reverse{fn=f", "unclosed '{' in pipeline"),
        ("ad-reverse{fn=f}x", "options must end with '}'"),
        ("dce{fn=f}", "pass 'dce' takes no options"),
    ],
)
def test_bad_options_are_reported(spelling: str, message: str) -> None:
    with pytest.raises(PassOptionError, match=re.escape(message)):
        run_passes(SIN_OF_PRODUCT, spelling)


def test_gradc_opt_runs_ad_reverse_before_the_gc_passes() -> None:
    # the default pipeline after AD: the result still verifies and computes the gradient
    pipeline = "ad-reverse{fn=f wrt=a,c},dce,phi-decay,stack-promote,lifetimes"
    result = CliRunner().invoke(opt, ["-", "-p", pipeline], input=ARRAY_SUM)
    assert result.exit_code == 0, result.output
    module, out = run_passes(ARRAY_SUM, pipeline)
    assert result.output == out
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.rev.0_2.ro.0.c(
        CHECK: decref
        CHECK-LABEL: func @d_f(
        """,
    )
    args: list[object] = [np.array([0.5, -1.0, 2.0]), 3, 1.5]
    close(call(module, "d_f", args), (fd_gradient(module, "f", args, 0), 2 * 1.5 * 5.25))
    result = CliRunner().invoke(opt, ["-", "-p", "ad-reverse{fn=f wrt=n}"], input=ARRAY_SUM)
    assert result.exit_code == 1
    assert "error: cannot differentiate 'f' with respect to 'n' of type i64" in result.output


NEGATIVE_INDEX_SQUARES = """
func @f(%a: array[f64,1,A], %n: i64) -> f64 {
^entry:
  %z = const 0.0 : f64
  %0 = const 0 : i64
  %1 = const 1 : i64
  br ^header
^header:
  %i = phi [^entry: %0], [^body: %i.next] : i64
  %s = phi [^entry: %z], [^body: %s.next] : f64
  %c0 = cmp lt %i, %n : i1
  condbr %c0, ^body, ^exit
^body:
  %j = sub %i, %n : i64
  %p = elemaddr %a, (%j) : ptr[f64]
  %aj = load %p : f64
  %sq = mul %aj, %aj : f64
  %s.next = add %s, %sq : f64
  %i.next = add %i, %1 : i64
  br ^header
^exit:
  ret %s
}
"""


def test_an_element_and_its_shadow_share_one_wrapped_index() -> None:
    # a[i - n]: the reverse sweep reloads the element (the partials of aj * aj) and adds
    # into its shadow; the negative index is wrapped once for both, and neither
    # elemoffset wraps it again
    module, out = run_passes(NEGATIVE_INDEX_SQUARES, "ad-reverse{fn=f wrt=a}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.rev.0
        CHECK: ^rev.body:
        CHECK: %[[W:[0-9]+]] = select %{{[0-9]+}}, %{{[0-9]+}}, %[[J:[0-9a-z.]+]] : i64
        CHECK-NOT: select {{.*}} : i64
        CHECK: elemoffset %{{[0-9]+}}, (%[[W]]) {in_range} : i64
        CHECK-NOT: select {{.*}} : i64
        CHECK: elemoffset %d_a, (%[[W]]) {in_range} : i64
        CHECK: ^rev.exit:
        """,
    )
    a = np.array([0.5, -1.25, 2.0, 3.5])
    grad = call(module, "d_f", [a, 4])
    np.testing.assert_array_equal(grad, 2.0 * a)
    np.testing.assert_allclose(grad, fd_gradient(module, "f", [a, 4], 0), rtol=1e-6)
