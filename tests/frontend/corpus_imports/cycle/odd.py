import even


def is_odd(n):
    if n == 0:
        return False
    return even.is_even(n - 1)
