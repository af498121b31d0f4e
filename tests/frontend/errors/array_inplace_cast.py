# ruff: noqa
# expect-message: Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting rule 'same_kind' (NumPy's UFuncTypeError)
import gradc
from gradc import i64


@gradc.export
def f(a: i64[:]) -> None:
    a += 1.5  # error-here
