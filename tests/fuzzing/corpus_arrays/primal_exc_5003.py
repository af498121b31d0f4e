# fuzz: class=primal_exc key=primal_exc:primal seed=5003 input_seed=5003 opt=0
# fixed in the oracle: np.argmax(...) is an np.int64 in NumPy (x % 0 is 0 with a warning); gradc computes with
# Python int semantics and raises: the documented difference 'Scalars are Python numbers' (docs/supported.md)
# where: primal:f(np.array([1.502, -0.875, -0.861, -1.524], dtype=float64) [S], np.array([1, 5], dtype=int64) [C], True, True)
# NumPy returns 2.0, gradc raises ZeroDivisionError(integer modulo by zero)
import numpy as np

import gradc
from gradc import f64, i64

FUZZ = {"f": {"a0": ("f64", (4,), "A"), "a1": ("i64", (2,), "A"), "s0": "bool", "s1": "bool"}}


@gradc.export
def f(a0: f64[:], a1: i64[:], s0: bool, s1: bool) -> f64:
    t1 = s1 % np.argmax(a0, axis=-1)
    return 2.0
