from . import util
from .inner.deep import cube
from .util import twice


def g(x):
    return util.clamp(twice(x), -util.LIMIT, util.LIMIT) + cube(x)
