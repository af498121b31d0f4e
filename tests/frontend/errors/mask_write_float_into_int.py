# ruff: noqa
# expect-message: cannot assign a f64 through a boolean mask into a i64[:] array (NumPy's 'same_kind' casting)
import gradc
from gradc import f64, i64


@gradc.export
def f(k: i64[:], s: f64) -> None:
    k[k > 0] = s  # error-here
