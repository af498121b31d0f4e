# ruff: noqa
# expect-message: endpoint= must be the constant True or False
# expect-col: 42
# expect-node: Name
import numpy as np
import gradc
from gradc import f64, boolean


@gradc.export
def f(e: boolean) -> f64:
    a = np.linspace(0.0, 1.0, 5, endpoint=e)  # error-here
    return a[0]
