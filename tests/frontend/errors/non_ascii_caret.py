# ruff: noqa
# expect-message: a list literal is not supported
# expect-col: 20
# expect-node: List
# expect-carets: 9
import gradc
from gradc import f64


@gradc.export
def f(é: f64) -> f64:
    漢字 = é
    return 漢字 * é + [漢字, é][0]  # error-here
