import pkg.sub
import pkg.sub as s
from pkg import UNIT, clamp
from pkg import sub as sub2

import gradc
from gradc import f64


@gradc.export
def p(x: f64) -> f64:
    return pkg.sub.g(x) + s.g(x / 2) + clamp(x, 0.0, UNIT) + sub2.g(1.0) + pkg.util.LIMIT


CASES = {"p": [(0.0,), (0.5,), (3.0,), (-7.5,)]}
