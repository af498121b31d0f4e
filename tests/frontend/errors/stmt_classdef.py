# ruff: noqa
# expect-message: unsupported statement 'ClassDef'
# expect-col: 4
# expect-node: ClassDef
import gradc
from gradc import f64, i64


@gradc.export
def f(x: f64) -> f64:
    class Box:  # error-here
        pass

    return x
