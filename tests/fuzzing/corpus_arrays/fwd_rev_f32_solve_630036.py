# fuzz: class=fwd_rev key=fwd_rev:grad seed=630036 input_seed=630036 opt=0
# where: reduced by hand from seed 630036 (arrays-more, session 9): jvp -0.18381148 vs <grad, v>
# -0.18379550 (FD None). a2 / s0 is float32 (NEP 50: s0 is a Python float), so the matrix and
# its solve are float32 in both modes, each rounding in its own order: no bug; the array
# oracle compares the modes within F32_DOT_RTOL where float32 values take part.
import numpy as np

import gradc
from gradc import f32, f64

FUZZ = {
    "g": {
        "a0": ("f64", (1, 3), "A"),
        "a1": ("f64", (2, 1), "A"),
        "a2": ("f32", (2, 1), "A"),
        "s0": "f64",
    }
}


@gradc.export
def g(a0: f64[:, :], a1: f64[:, :], a2: f32[:, :], s0: f64) -> f64:
    return np.sum(np.linalg.solve((a2 / s0) @ (a2 / s0).T + 1.0 * np.eye(2), a1))


d_g = gradc.grad(g, wrt=("a0", "a1", "s0"))
t_g = gradc.jvp(g, wrt=("a0", "a1", "s0"))
v_g = gradc.value_and_grad(g, wrt=("a0", "a1", "s0"))
