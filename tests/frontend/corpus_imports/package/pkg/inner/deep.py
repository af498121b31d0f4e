from ..util import twice


def cube(x):
    return twice(x) * x * x / 2
