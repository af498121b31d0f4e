"""``ad-forward``: text in, text out, and the derivative run in the reference interpreter.

Each test parses IR, runs ``ad-forward{...}`` (verifying before and after), checks the
tangent code that matters with FileCheck, and runs the export in the interpreter against
central finite differences of the primal function (or against ``ad-reverse``), so a
wrong derivative fails even where the printed structure looks right.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner

from gradc.cli.opt import opt
from gradc.compiler.ir.errors import PassError
from gradc.passes.options import PassOptionError
from tests.filecheck_util import filecheck
from tests.passes.ad_oracle import call, close, directional_fd, run_passes

SIN_OF_PRODUCT = """
func @f(%x: f64, %y: f64) -> f64 {
^entry:
  %0 = mul %x, %y : f64
  %1 = math sin(%0) : f64
  ret %1
}
"""

POWER_LOOP = """
func @f(%x: f64, %n: i64) -> f64 {
^entry:
  %one = const 1.0 : f64
  %0 = const 0 : i64
  %1 = const 1 : i64
  br ^header
^header:
  %i = phi [^entry: %0], [^body: %i.next] : i64
  %p = phi [^entry: %one], [^body: %p.next] : f64
  %c = cmp lt %i, %n : i1
  condbr %c, ^body, ^exit
^body:
  %p.next = mul %p, %x : f64
  %i.next = add %i, %1 : i64
  br ^header
^exit:
  ret %p
}
"""

BRANCH = """
func @f(%x: f64, %y: f64) -> f64 {
^entry:
  %0 = const 0.0 : f64
  %c = cmp lt %x, %0 : i1
  condbr %c, ^neg, ^pos
^neg:
  %a = mul %x, %y : f64
  br ^join
^pos:
  %b = math exp(%y) : f64
  br ^join
^join:
  %r = phi [^neg: %a], [^pos: %b] : f64
  ret %r
}
"""

# s = Σ_i (a[i]·c)², through a local array t
ARRAY_SUM = """
func @f(%a: array[f64,1,A], %n: i64, %c: f64) -> f64 {
^entry:
  %z = const 0.0 : f64
  %t = newarray(%n), %z : array[f64,1,C]
  %0 = const 0 : i64
  %1 = const 1 : i64
  br ^header
^header:
  %i = phi [^entry: %0], [^body: %i.next] : i64
  %s = phi [^entry: %z], [^body: %s.next] : f64
  %c0 = cmp lt %i, %n : i1
  condbr %c0, ^body, ^exit
^body:
  %pa = elemaddr %a, (%i) : ptr[f64]
  %ai = load %pa : f64
  %v = mul %ai, %c : f64
  %pt = elemaddr %t, (%i) : ptr[f64]
  store %pt, %v
  %ti = load %pt : f64
  %sq = mul %ti, %ti : f64
  %s.next = add %s, %sq : f64
  %i.next = add %i, %1 : i64
  br ^header
^exit:
  ret %s
}
"""

CALL = """
func @g(%u: f64) -> f64 {
^entry:
  %0 = math log(%u) : f64
  %1 = mul %0, %u : f64
  ret %1
}

func @f(%x: f64, %y: f64) -> f64 {
^entry:
  %0 = call @g(%x) : f64
  %1 = add %0, %y : f64
  %2 = call @g(%1) : f64
  ret %2
}
"""


def test_scalar_tangents_follow_the_chain_rule() -> None:
    module, out = run_passes(SIN_OF_PRODUCT, "ad-forward{fn=f wrt=x,y}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.jvp.0_1(%x: f64, %y: f64, %d_x: f64, %d_y: f64) -> tuple[f64,f64]
        CHECK: %0 = mul %x, %y : f64
        CHECK-DAG: mul %d_x, %y : f64
        CHECK-DAG: mul %d_y, %x : f64
        CHECK: %[[P:[0-9]+]] = math sin(%0) : f64
        CHECK: math ieee_cos(%0) : f64
        CHECK: tuple(%[[P]], %{{[0-9]+}}) : tuple[f64,f64]
        CHECK-LABEL: func @d_f(%x: f64, %y: f64, %d_x: f64, %d_y: f64) -> tuple[f64,f64] export
        CHECK-NEXT: ^entry:
        CHECK-NEXT: call @f.jvp.0_1(%x, %y, %d_x, %d_y)
        """,
    )
    x, y, dx, dy = 0.7, -1.3, 0.4, 2.0
    value, tangent = call(module, "d_f", [x, y, dx, dy])  # type: ignore[misc]
    assert value == call(module, "f", [x, y])
    close(tangent, directional_fd(module, "f", [x, y], {0: dx, 1: dy}))


def test_default_wrt_is_the_first_parameter_and_name_is_d_fn() -> None:
    module, out = run_passes(SIN_OF_PRODUCT, "ad-forward{fn=f}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.jvp.0(%x: f64, %y: f64, %d_x: f64)
        CHECK-NOT: %d_y
        CHECK-LABEL: func @d_f(%x: f64, %y: f64, %d_x: f64) -> tuple[f64,f64] export
        """,
    )
    _, tangent = call(module, "d_f", [0.5, 3.0, 1.0])  # type: ignore[misc]
    close(tangent, directional_fd(module, "f", [0.5, 3.0], {0: 1.0}))


def test_loop_carried_value_gets_a_tangent_phi() -> None:
    module, out = run_passes(POWER_LOOP, "ad-forward{fn=f wrt=x name=t}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.jvp.0(%x: f64, %n: i64, %d_x: f64)
        CHECK: ^entry:
        CHECK: %[[Z:[0-9]+]] = const 0.0 : f64
        CHECK: ^header:
        CHECK: %p = phi [^entry: %one], [^body: %p.next] : f64
        CHECK: %d_p = phi [^entry: %[[Z]]], [^body: %[[NEXT:[0-9]+]]] : f64
        CHECK: ^body:
        CHECK: mul %d_p, %x
        CHECK: mul %d_x, %p
        CHECK: %[[NEXT]] = add
        CHECK: ^exit:
        CHECK-NEXT: tuple(%p, %d_p)
        CHECK-LABEL: func @t(
        """,
    )
    for n in (0, 1, 5):
        _, tangent = call(module, "t", [1.1, n, 1.0])  # type: ignore[misc]
        close(tangent, directional_fd(module, "f", [1.1, n], {0: 1.0}))


@pytest.mark.parametrize("x", [-0.5, 0.5])
def test_branch_joins_tangents_with_a_phi(x: float) -> None:
    module, out = run_passes(BRANCH, "ad-forward{fn=f wrt=x,y}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.jvp.0_1(
        CHECK: ^neg:
        CHECK: %a = mul %x, %y : f64
        CHECK: ^pos:
        CHECK: %b = math exp(%y) : f64
        CHECK: ^join:
        CHECK-NEXT: %r = phi [^neg: %a], [^pos: %b] : f64
        CHECK-NEXT: %d_r = phi [^neg: %{{[0-9]+}}], [^pos: %{{[0-9]+}}] : f64
        CHECK-NEXT: tuple(%r, %d_r)
        """,
    )
    _, tangent = call(module, "d_f", [x, 0.3, 0.25, -1.5])  # type: ignore[misc]
    close(tangent, directional_fd(module, "f", [x, 0.3], {0: 0.25, 1: -1.5}))


def test_local_array_gets_a_tangent_array_and_stores_store_tangents() -> None:
    module, out = run_passes(ARRAY_SUM, "ad-forward{fn=f wrt=a,c}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.jvp.0_2(%a: array[f64,1,A], %n: i64, %c: f64, %d_a: array[f64,1,A], %d_c: f64)
        CHECK: %t = newarray(%n), %z : array[f64,1,C]
        CHECK-NEXT: %[[ZERO:[0-9]+]] = const 0.0 : f64
        CHECK-NEXT: %[[DT:[0-9]+]] = newarray(%n), %[[ZERO]] : array[f64,1,C]
        CHECK: ^body:
        CHECK: %[[DPA:[0-9]+]] = elemaddr %d_a, (%i)
        CHECK: load %[[DPA]]
        CHECK: %pt = elemaddr %t, (%i)
        CHECK-NEXT: %[[DPT:[0-9]+]] = elemaddr %[[DT]], (%i)
        CHECK-NEXT: store %pt, %v
        CHECK-NEXT: store %[[DPT]], %{{[0-9]+}}
        CHECK-NEXT: %ti = load %pt
        CHECK-NEXT: load %[[DPT]]
        CHECK-LABEL: func @d_f(%a: array[f64,1,A], %n: i64, %c: f64, %d_a: array[f64,1,A], %d_c: f64)
        CHECK: raise ValueError "tangent 'd_a' must have the shape of 'a' (they differ in axis 0)"
        """,
    )
    a = np.array([0.5, -1.0, 2.0])
    da = np.array([1.0, 0.5, -0.25])
    _, tangent = call(module, "d_f", [a, 3, 1.5, da, 0.75])  # type: ignore[misc]
    close(tangent, directional_fd(module, "f", [a, 3, 1.5], {0: da, 2: 0.75}))
    with pytest.raises(ValueError, match="tangent 'd_a' must have the shape of 'a'"):
        call(module, "d_f", [a, 3, 1.5, np.zeros(2), 0.0])


def test_calls_become_calls_of_the_callees_jvp() -> None:
    module, out = run_passes(CALL, "ad-forward{fn=f wrt=x,y}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.jvp.0_1(
        CHECK: %[[R0:[0-9]+]] = call @g.jvp.0(%x, %d_x) : tuple[f64,f64]
        CHECK-NEXT: extract %[[R0]], 0
        CHECK-NEXT: extract %[[R0]], 1
        CHECK-NOT: call @g(
        CHECK: call @g.jvp.0(
        CHECK-NOT: call @g(
        CHECK-LABEL: func @g.jvp.0(%u: f64, %d_u: f64) -> tuple[f64,f64]
        CHECK: math log(%u)
        """,
    )
    args = [1.5, 0.5]
    _, tangent = call(module, "d_f", [*args, 1.0, -2.0])  # type: ignore[misc]
    close(tangent, directional_fd(module, "f", args, {0: 1.0, 1: -2.0}))


def test_forward_agrees_with_reverse_on_every_direction() -> None:
    # the dot-product test: ⟨∇f, v⟩ from ad-reverse equals the JVP along v
    module, _ = run_passes(CALL, "ad-forward{fn=f wrt=x,y name=t},ad-reverse{fn=f wrt=x,y}")
    args = [1.25, 0.75]
    grad = call(module, "d_f", args)
    assert isinstance(grad, tuple)
    for v in ([1.0, 0.0], [0.0, 1.0], [0.3, -2.0]):
        _, tangent = call(module, "t", [*args, *v])  # type: ignore[misc]
        close(tangent, grad[0] * v[0] + grad[1] * v[1])


def test_error_exit_keeps_its_raise_and_needs_no_tangent() -> None:
    text = """
    func @f(%x: f64) -> f64 {
    ^entry:
      %0 = const 0.0 : f64
      %c = cmp lt %x, %0 : i1
      condbr %c, ^bad, ^ok
    ^bad:
      raise ValueError "negative"
    ^ok:
      %r = math sqrt(%x) : f64
      ret %r
    }
    """
    module, out = run_passes(text, "ad-forward{fn=f}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.jvp.0(
        CHECK: ^bad:
        CHECK-NEXT: raise ValueError "negative"
        CHECK: ^ok:
        CHECK: math sqrt(%x)
        """,
    )
    _, tangent = call(module, "d_f", [2.0, 1.0])  # type: ignore[misc]
    close(tangent, directional_fd(module, "f", [2.0], {0: 1.0}))
    with pytest.raises(ValueError, match="negative"):
        call(module, "d_f", [-1.0, 1.0])


def test_low_level_forward_interleaves_tangents_after_their_parameters() -> None:
    module, out = run_passes(ARRAY_SUM, "ad-forward{fn=f kind=forward duplicated=a,c}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @d_f(%a: array[f64,1,A], %d_a: array[f64,1,A], %n: i64, %c: f64, %d_c: f64) -> tuple[f64,f64] export
        CHECK: call @f.jvp.0_2(
        """,
    )
    a, da = np.array([1.0, 2.0]), np.array([0.5, 0.5])
    _, tangent = call(module, "d_f", [a, da, 2, -0.5, 2.0])  # type: ignore[misc]
    close(tangent, directional_fd(module, "f", [a, 2, -0.5], {0: da, 2: 2.0}))


def test_tuple_results_get_tuple_tangents() -> None:
    text = """
    func @f(%x: f64, %y: f64) -> tuple[f64,f64] {
    ^entry:
      %0 = mul %x, %y : f64
      %1 = div %x, %y : f64
      %2 = tuple(%0, %1) : tuple[f64,f64]
      ret %2
    }
    """
    module, out = run_passes(text, "ad-forward{fn=f wrt=y}")
    filecheck(
        out,
        """
        CHECK-LABEL: func @f.jvp.1(%x: f64, %y: f64, %d_y: f64) -> tuple[tuple[f64,f64],tuple[f64,f64]]
        CHECK-LABEL: func @d_f(
        """,
    )
    x, y = 3.0, 0.5
    value, tangent = call(module, "d_f", [x, y, 1.0])  # type: ignore[misc]
    assert value == (x * y, x / y)
    close(tangent, (x, -x / y**2))


def test_an_int_parameter_has_no_tangent() -> None:
    with pytest.raises(PassError, match="cannot differentiate 'f' with respect to 'n'"):
        run_passes(POWER_LOOP, "ad-forward{fn=f wrt=n}")


@pytest.mark.parametrize(
    ("spelling", "message"),
    [
        ("ad-forward", "missing option fn"),
        ("ad-forward{fn=g}", "fn=g: no such function"),
        ("ad-forward{fn=f wrt=z}", "'f' has no parameter 'z' (parameters: x, y)"),
        ("ad-forward{fn=f wrt=x,x}", "names a parameter twice"),
        ("ad-forward{fn=f kind=grad}", "unknown kind 'grad' (kinds: jvp, forward)"),
        ("ad-forward{fn=f duplicated=x}", "go with the low-level kinds"),
        ("ad-forward{fn=f kind=forward wrt=x}", "takes duplicated=/active=, not wrt="),
        ("ad-forward{fn=f name=f}", "the module has a function 'f' already"),
        ("ad-forward{fn=f wrt}", "option 'wrt' is not key=value"),
        ("ad-forward{fn=f tape=none}", "unknown option 'tape'"),
    ],
)
def test_bad_options_are_reported(spelling: str, message: str) -> None:
    with pytest.raises(PassOptionError, match=re.escape(message)):
        run_passes(SIN_OF_PRODUCT, spelling)


def test_gradc_opt_runs_ad_forward_in_a_pipeline() -> None:
    pipeline = "ad-forward{fn=f wrt=x,y name=t},dce"
    result = CliRunner().invoke(opt, ["-", "-p", pipeline], input=SIN_OF_PRODUCT)
    assert result.exit_code == 0, result.output
    _, alone = run_passes(SIN_OF_PRODUCT, "ad-forward{fn=f wrt=x,y name=t}")
    _, with_dce = run_passes(SIN_OF_PRODUCT, pipeline)
    assert result.output == with_dce
    assert with_dce.count("\n") < alone.count("\n")  # dce removed the rules' dead constants
    filecheck(
        result.output,
        """
        CHECK-LABEL: func @f.jvp.0_1(
        CHECK: ret
        CHECK-LABEL: func @t(%x: f64, %y: f64, %d_x: f64, %d_y: f64)
        """,
    )
    bad = CliRunner().invoke(opt, ["-", "-p", "ad-forward{fn=f wrt=q}"], input=SIN_OF_PRODUCT)
    assert bad.exit_code == 1
    assert "gradc opt: 'f' has no parameter 'q'" in bad.output
