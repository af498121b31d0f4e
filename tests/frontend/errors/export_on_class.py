# ruff: noqa
# expect-message: @gradc.export cannot be applied to class 'A'
# expect-col: 1
# expect-node: Attribute
import gradc
from gradc import f64


@gradc.export  # error-here
class A:
    pass
