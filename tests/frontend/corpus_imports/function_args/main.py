"""Functions passed across modules: a main-module function to an imported helper, an
imported function (``helpers.cube``) by keyword, and both composed."""

import helpers
from helpers import apply

import gradc
from gradc import f64


def _twice(x):
    return 2.0 * x


@gradc.export
def run(x: f64) -> f64:
    return (
        apply(_twice, x)
        + helpers.apply(f=helpers.cube, x=x)
        + helpers.compose(_twice, helpers.wave, x)
    )


d_run = gradc.grad(run, wrt=("x",))
t_run = gradc.jvp(run, wrt=("x",))

CASES = {"run": [(0.3,), (-1.2,), (2.0,)]}
GRADS = {"d_run": ("run", [(0.3,), (-1.2,), (2.0,)])}
JVPS = {"t_run": ("run", [((0.3,), (1.0,)), ((-1.2,), (0.5,))])}
