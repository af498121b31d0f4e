# fuzz: class=ice key=ice:KeyError:_Argument(type=ArrayType(dtype=ScalarType(name='_',_bits=N,_is_float=True),_ndim=N,_layout='_'),_name='_',_index=N) seed=30230 input_seed=30230 opt=0
# where: compile
#   File "/work/main/passes/ad/reverse.py", line 943, in _shadow
#     shadow = self.shadows[array]
#              ~~~~~~~~~~~~^^^^^^^
# KeyError: Argument(type=ArrayType(dtype=ScalarType(name='f64', bits=64, is_float=True), ndim=1, layout='C'), name='a0', index=0)
import gradc

FUZZ = {"f": {"a0": ("f64", (2,), "C"), "x1": "f64", "x2": "f64", "c3": "bool"}}


@gradc.export("f64(f64[::1], f64, f64, bool)")
def f(a0, x1, x2, c3):
    t11 = a0.copy()
    t11[1] = x1
    return 1.0


v0_f = gradc.value_and_grad(f, wrt=("x1",))
