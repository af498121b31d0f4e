# ruff: noqa
# expect-message: unsupported statement 'AsyncFunctionDef'
# expect-col: 4
# expect-node: AsyncFunctionDef
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    async def g():  # error-here
        return 1.0

    return x
