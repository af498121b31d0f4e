# fuzz: class=compile_error key=compile_error:range()_arg_N_must_not_be_zero seed=0 input_seed=3 opt=0
# a constant zero range step was a compile error; CPython raises ValueError only when the
# line runs (c False: the function returns; c True: ValueError)
import gradc
from gradc import f64, i64

FUZZ = {"f": {"x": "f64", "c": "bool"}, "g": {"n": "i64"}}
FUZZ_INPUTS = {"f": [[1.5, True], [1.5, False]], "g": [[3], [200]]}


@gradc.export
def f(x: f64, c: bool) -> f64:
    if c:
        for i in range(1, 5, 0):
            x = x * 2.0
    return x * x


@gradc.export
def g(n: i64) -> i64:
    s = 0
    if n > 100:
        for i, k in enumerate(range(1, n, 0)):
            s += i * k
    return s + n


d_f = gradc.grad(f, wrt="x")
t_f = gradc.jvp(f, wrt="x")
