# ruff: noqa
# expect-message: numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead (NumPy's TypeError)
import gradc


@gradc.export
def f(a: "bool[:]", b: "bool[:]") -> bool:
    c = a - b  # error-here
    return c[0]
