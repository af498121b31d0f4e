"""Issue #18 class 1, verbatim: reverse mode of a function with an error exit was an
internal compiler error (a phi of the reverse sweep without incoming values)."""

import gradc


@gradc.export("f64(f64, f64, f64)")
def f(x0, y1, z2):
    v1 = 1
    for i3 in range(5, 8, v1):  # noqa: B007 (verbatim)
        pass
    return 3.0


d_f = gradc.grad(f, wrt="x0")
t_f = gradc.jvp(f, wrt="x0")


@gradc.export("f64(f64)")
def g(x0):
    if x0:
        raise ValueError
    return x0


d_g = gradc.grad(g, wrt="x0")
t_g = gradc.jvp(g, wrt="x0")
