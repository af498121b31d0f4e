# fuzz: class=fwd_rev key=fwd_rev:grad seed=5294 input_seed=5294 opt=0
# fixed: NaN in an input array whose view is scaled in place: 0 * NaN reached the gradient of s0;
# adjoints have the strong zero also with active partials (passes/ad/rules/algebra.py RuleOps.scale)
# where: grad:d_g(np.array([[-1.12, -0.12, -0.97], [1.736, -0.486, 1.364], [-1.457, 0.92, -1.44]], dtype=float64) [C], np.array([[-1.686, nan, 1.673, -0.591]], dtype=float64) [F], np.array([3], dtype=int64) [F], 0.0)
# nan vs 0.0 (FD None)
import gradc
from gradc import f64, i64

FUZZ = {
    "g": {
        "a0": ("f64", (3, 3), "A"),
        "a1": ("f64", (1, 4), "A"),
        "a2": ("i64", (1,), "A"),
        "s0": "f64",
    }
}


@gradc.export
def g(a0: f64[:, :], a1: f64[:, :], a2: i64[:], s0: f64) -> f64:
    t6 = a1[-1]
    t6[:-1] *= s0
    return s0 // 2.0


d_g = gradc.grad(g, wrt=("a0", "a1", "s0"))
t_g = gradc.jvp(g, wrt=("a0", "a1", "s0"))
