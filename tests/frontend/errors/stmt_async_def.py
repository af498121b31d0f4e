# ruff: noqa
# expect-message: an async function definition is not supported in compiled code
# expect-col: 4
# expect-node: AsyncFunctionDef
# expect-carets: 14
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    async def g():  # error-here
        return 1.0

    return x
