def f(x):
    return x * 3
