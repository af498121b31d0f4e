# ruff: noqa
# expect-message: @gradc.export cannot be applied to 'async def f'
# expect-col: 1
# expect-node: Attribute
import gradc
from gradc import f64


@gradc.export  # error-here
async def f(x: f64) -> f64:
    return x
