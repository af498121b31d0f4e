# fuzz: class=primal_exc key=primal_exc:primal-pyfloat seed=434 input_seed=434 opt=0
# fixed in the oracle: gradc's Python-scalar ZeroDivisionError where NumPy's np.float64 gives inf is the
# documented difference 'Scalars are Python numbers' (docs/supported.md), counted as skipped
# where: primal-pyfloat:f(np.array([1.948], dtype=float64) [R], np.array([[0.95], [-1.532], [1.237], [1.525]], dtype=float64) [R], False)
# NumPy returns 0.0, gradc raises ZeroDivisionError(0.0 cannot be raised to a negative power)
import gradc
from gradc import f64

FUZZ = {"f": {"a0": ("f64", (1,), "A"), "a1": ("f64", (4, 1), "A"), "s0": "bool"}}


@gradc.export
def f(a0: f64[:], a1: f64[:, :], s0: bool) -> f64:
    a0[1:3] -= s0 ** a1[1].sum(axis=0)
    return 0.0
