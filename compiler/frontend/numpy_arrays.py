"""NumPy functions only whole arrays have in gradc (the supported-constructs page lists
them from here): their arities. Each is an ``ops.NumpyCall`` that inference types as an
elementwise ufunc (compiler/infer/elementwise.py); the scalar math functions of
:data:`~gradc.compiler.ir.numpy_math.NUMPY_FUNCTIONS` take arrays too.
"""

from __future__ import annotations

#: ``np.<name>`` -> number of positional operands.
ARRAY_UFUNCS: dict[str, int] = {
    "where": 3,  # np.where(condition, x, y)
    "clip": 3,  # np.clip(a, a_min, a_max)
}
