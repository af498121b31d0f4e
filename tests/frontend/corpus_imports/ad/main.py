import helpers
from helpers import energy

import gradc
from gradc import f64


@gradc.export
def e(x: f64, y: f64) -> f64:
    return energy(x, y) * helpers.WEIGHT + helpers.poly(x, 2)


d_e = gradc.grad(e, wrt=("x", "y"))
t_e = gradc.jvp(e, wrt=("x", "y"))

CASES = {"e": [(0.3, 1.2), (-0.7, 2.0)]}
GRADS = {"d_e": ("e", [(0.3, 1.2), (-0.7, 2.0), (1.1, -0.4)])}
JVPS = {"t_e": ("e", [((0.3, 1.2), (1.0, -0.5)), ((-0.7, 2.0), (0.25, 2.0))])}
