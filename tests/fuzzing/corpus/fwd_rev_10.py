# fuzz: class=fwd_rev key=fwd_rev:grad seed=10 input_seed=10 opt=0
# where: jvp of f with wrt x3 only; a0 is a Const array parameter that an active value is stored into
# jvp 0.0 vs <grad, v> -1.5910259782544416, FD [-1.591025978187055, -1.5910259782536684] (FD agrees with grad)
# (reduced by hand from the fuzzer's seed 10, avoid-known profile: the jvp drops the tangent
# of a value stored into an array parameter outside wrt and read back)
import gradc
from gradc import f64

FUZZ = {"f": {"a0": ("f64", (5,), "C"), "x3": "f64"}}


@gradc.export
def f(a0: f64[:], x3: f64) -> f64:
    a0[3] *= x3
    return a0[3]


t0_f = gradc.jvp(f, wrt="x3")
v0_f = gradc.grad(f, wrt="x3")
