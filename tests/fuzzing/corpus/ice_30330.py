# fuzz: class=ice key=ice:KeyError:_Argument(type=ArrayType(...)) seed=30330 input_seed=30330 opt=0
# where: compile (reverse mode: the adjoint of a copy of a Const array parameter, the copy
# made active by a store, looked for the parameter's shadow: KeyError in _shadow)
# (reduced by hand from the fuzzer's seed 30330, full profile)
import gradc
from gradc import f64

FUZZ = {"g": {"x2": "f64", "m3": ("f64", (2, 3), "A")}}


@gradc.export
def g(x2: f64, m3: f64[:, :]) -> f64:
    t8 = m3.copy()
    t8[0, 0] = x2 * t8[1, 1]
    return x2 + m3[-1, -1] + t8[0, 0] + 0.1


v0_g = gradc.vjp(g, wrt=("x2",))
t0_g = gradc.jvp(g, wrt=("x2",))
d0_g = gradc.grad(g, wrt=("x2", "m3"))
