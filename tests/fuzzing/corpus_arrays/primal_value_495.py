# fuzz: class=primal_value key=primal_value:primal seed=495 input_seed=495 opt=0
# (a fuzzer bug, fixed in tests/fuzzing/array_oracle.py: kept so the oracle stays right)
# where: primal:f(np.array([[0.112]], dtype=float64) [R], 1, 5)
# arrays differ (-0.224 vs -0.448): array([[-0.224]]) vs array([[-0.448]])
import gradc
from gradc import f64, i64

FUZZ = {"f": {"a0": ("f64", (1, 1), "A"), "s0": "i64", "s1": "i64"}}


@gradc.export
def f(a0: f64[:, :], s0: i64, s1: i64) -> f64[:, :]:
    t2 = a0
    a0[::2, -2:] = a0 * 2
    return -t2[::1]
