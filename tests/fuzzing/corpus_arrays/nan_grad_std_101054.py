# fuzz: class=nan_grad key=nan_grad:grad seed=101054 input_seed=101054 opt=0
# fixed: np.std at a zero spread (an axis of length 1, or equal elements) has derivative 0 (norm_sqrt, passes/ad/rules/math.py), not inf * 0 = NaN
# where: grad:d_g(np.array([-0.68], dtype=float64) [S], np.array([-1.751], dtype=float64) [S], 3)
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import gradc
from gradc import f64, i64

FUZZ = {"g": {"a0": ("f64", (1,), "A"), "a1": ("f64", (1,), "A"), "s0": "i64"}}


@gradc.export
def g(a0: f64[:], a1: f64[:], s0: i64) -> f64:
    return a1.std(axis=-1)


d_g = gradc.grad(g, wrt=("a1",))
