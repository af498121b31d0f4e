# ruff: noqa
# expect-message: gradc.grad() got an unexpected keyword 'argnums'
# expect-col: 20
# expect-node: keyword
# expect-help: gradc's wrt= takes parameter positions or names, as JAX's argnums does
# expect-carets: 9
import gradc
from gradc import f64


@gradc.export
def f(x: f64, y: f64) -> f64:
    return x * y


d_f = gradc.grad(f, argnums=0)  # error-here
