SCALE = 3


def f(x):
    return x * SCALE + inner(x)


def inner(x):
    return x / 2
