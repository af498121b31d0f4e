"""A differentiated function whose error paths raise f-string messages with int fields
(never taken on the drawn inputs): the AD sweeps carry the ``raisef`` terminator.
"""

import gradc
from gradc import f64, i64

DOMAINS = {"guarded_power": {"x": (0.5, 1.5), "n": (0, 5)}}


@gradc.export
def guarded_power(x: f64, n: i64) -> f64:
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    r = 1.0
    for i in range(n):
        if i > 100:
            raise RuntimeError(f"too many steps: {i} of {n}")
        r = r * x + 0.5
    return r


d_guarded_power = gradc.grad(guarded_power, wrt=("x",))
t_guarded_power = gradc.jvp(guarded_power, wrt=("x",))
