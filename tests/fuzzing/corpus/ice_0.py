# fuzz: class=ice key=ice:VerificationError:_in_function__,_block__,_instruction__:_phi_incoming_blocks_{}_differ_from_the_predecessors_{} seed=0 input_seed=0 opt=0
# where: compile
#     self.check_cfg()
#   File "/work/wt/fuzz/compiler/ir/verifier.py", line 306, in check_cfg
#     raise self.fail(
# gradc.compiler.ir.verifier.VerificationError: in function @f.rev.0.ro.0.c, block ^rev.while.else, instruction `%adj.7.0 = phi : f64`: phi incoming blocks {} differ from the predecessors {^rev.if.end}
import gradc
from gradc import f64

FUZZ = {"f": {"a0": ("f64", (2,), "A")}}


@gradc.export
def f(a0: f64[:]) -> f64:
    v4 = 1.0
    v7 = 1.0
    v9 = min(v4, -1.0)
    k10 = 0
    while k10 < 1 and (a0[1] > 1.829 or v7 <= 1.0):
        k10 += 1
    else:
        if v7 <= v7 + v9:
            raise OverflowError
    return v7 + v4 + a0[0] + a0[0] ** a0[0] * a0.shape[0]


v0_f = gradc.value_and_grad(f, wrt="a0")
