# ruff: noqa
# expect-message: function '_shift' must take plain positional parameters (no *args, **kwargs or keyword-only parameters)
import gradc
from gradc import f64


def _shift(x, *, by=1.0):
    return x + by


@gradc.export
def f(x: f64) -> f64:
    return _shift(x, by=2.0)  # error-here
