import math

SCALE = 2.5
OFFSET = SCALE * 2 + 1


def f(x):
    return math.sin(x) * SCALE + OFFSET


def square(v):
    return v * v


def unrelated(y):
    return y - 1
