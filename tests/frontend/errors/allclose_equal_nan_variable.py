# ruff: noqa
# expect-message: np.allclose() argument 'equal_nan=' must be a constant bool
import gradc
import numpy as np
from gradc import f64


@gradc.export
def close(x: f64[:], y: f64[:], nan_ok: bool) -> bool:
    return np.allclose(x, y, equal_nan=nan_ok)  # error-here
