LIMIT = 10.0


def clamp(x, lo, hi):
    return min(max(x, lo), hi)


def twice(x):
    return 2 * x
