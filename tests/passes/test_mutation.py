"""Written-parameter analysis: direct stores, through phis, and through calls."""

from __future__ import annotations

from gradc.compiler.ir.parser import parse_module
from gradc.passes.analysis.mutation import written_params

ARR = "array[f64,1,A]"


def test_direct_store_through_phi_and_through_a_callee() -> None:
    module = parse_module(
        """
        func @fill(%a: ARR, %v: f64) -> none {
        ^entry:
          %i = const 0 : i64
          %p = elemaddr %a, (%i) : ptr[f64]
          %s = store %p, %v : none
          ret
        }

        func @pick(%a: ARR, %b: ARR, %c: i1) -> none {
        ^entry:
          condbr %c, ^x, ^y
        ^x:
          br ^join
        ^y:
          br ^join
        ^join:
          %t = phi [^x: %a], [^y: %b] : ARR
          %v = const 1.0 : f64
          %r = call @fill(%t, %v) : none
          ret
        }

        func @read(%a: ARR) -> f64 {
        ^entry:
          %i = const 0 : i64
          %p = elemaddr %a, (%i) : ptr[f64]
          %x = load %p : f64
          ret %x
        }
        """.replace("ARR", ARR)
    )
    written = written_params(module)
    assert written == {"fill": {0}, "pick": {0, 1}, "read": set()}
