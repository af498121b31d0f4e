"""Helpers taking functions, and a function passed to them from the main module."""

import math


def apply(f, x):
    return f(x)


def compose(f, g, x):
    return f(g(x))


def cube(x):
    return x * x * x


def wave(x):
    return math.sin(3.0 * x)
