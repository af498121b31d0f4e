# ruff: noqa
# expect-message: np.left_shift() of bool is not supported (NumPy's result is int8)
import gradc
from gradc import i64


@gradc.export
def f(b: bool[:], c: bool[:]) -> i64:
    d = b << c  # error-here
    return 0
