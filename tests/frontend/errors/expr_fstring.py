# ruff: noqa
# expect-message: an f-string is not supported in compiled code
# expect-col: 8
# expect-node: JoinedStr
# expect-help: only as the message of a raised exception
# expect-carets: 6
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    s = f"{x}"  # error-here
    return x
