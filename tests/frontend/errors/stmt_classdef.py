# ruff: noqa
# expect-message: a class definition is not supported in compiled code
# expect-col: 4
# expect-node: ClassDef
# expect-help: pass the fields as scalars or arrays
# expect-carets: 10
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    class Box:  # error-here
        pass

    return x
