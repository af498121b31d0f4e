"""Floats through helper parameters that take their default values: a float default
multiplying an active value, an int default as a trip count, a default overridden by an
active argument in another call.
"""

import gradc
from gradc import f64

DOMAINS = {
    "defaulted_steps": {"x": (-0.5, 0.5), "h": (-0.5, 0.5)},
    "keyword_steps": {"x": (-0.5, 0.5), "h": (-0.5, 0.5)},
}
RATE = 0.75


def _step(x, h=RATE / 3, n=3):
    for _ in range(n):
        x = x + h * x * x
    return x


@gradc.export
def defaulted_steps(x: f64, h: f64) -> f64:
    return _step(x) + _step(x, h) + _step(x, h, 1) * _step(h, x * 0.1)


d_defaulted_steps = gradc.grad(defaulted_steps, wrt=("x", "h"))
t_defaulted_steps = gradc.jvp(defaulted_steps, wrt=("x", "h"))


@gradc.export
def keyword_steps(x: f64, h: f64) -> f64:
    return _step(h=h, x=x) + _step(x, n=2) * _step(n=1, h=x, x=h)


d_keyword_steps = gradc.grad(keyword_steps, wrt=("x", "h"))
t_keyword_steps = gradc.jvp(keyword_steps, wrt=("x", "h"))
