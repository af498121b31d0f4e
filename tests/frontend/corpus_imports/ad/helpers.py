import math

WEIGHT = 0.5


def poly(y, n):
    acc = 0.0
    for k in range(n):
        acc = acc * y + (k + 1)
    return acc


def energy(x, y):
    if x > 0:
        return math.sin(x) * y + poly(y, 4)
    return x * x * y + poly(y, 3)
