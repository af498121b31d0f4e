# fuzz: class=ice key=ice:VerificationError:_in_function__,_block__,_instruction__:_cast_from_array[fN,N,C]_to_array[fN,N,F]:_an_array_cast_may_only_relabel_C/F_as_A seed=30 input_seed=30 opt=0
# where: compile
#     self.check_types()
#   File "/work/wt/fuzz/compiler/ir/verifier.py", line 404, in check_types
#     raise self.fail(reason, inst=inst)
# gradc.compiler.ir.verifier.VerificationError: in function @t1_f, block ^shape.end.1, instruction `%6 = cast %d_m0.1 : array[f64,2,F]`: cast from array[f64,2,C] to array[f64,2,F]: an array cast may only relabel C/F as A
import gradc
from gradc import f64, i64

FUZZ = {"f": {"m0": ("f64", (2, 3), "F"), "n1": "i64"}}


@gradc.export
def f(m0: f64[::1, :], n1: i64) -> f64:
    m0[-2, n1 % 3] = 1.0
    return 1.0


t1_f = gradc.jvp(f, wrt=("m0",))
