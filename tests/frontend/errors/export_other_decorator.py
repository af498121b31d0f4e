# ruff: noqa
# expect-message: exported function 'f' cannot have other decorators
# expect-col: 1
# expect-node: Attribute
import functools

import gradc
from gradc import f64


@gradc.export
@functools.lru_cache  # error-here
def f(x: f64) -> f64:
    return x
