"""Kernels for tests/ad/test_ad_layouts.py: the reproducers of issue #18 classes 2 and 5 as
filed (string signatures, partial ``wrt``), Fortran-ordered parameters in every derivative
flavour, array parameters outside ``wrt`` written with active values, array results, and
float32 casts."""

import math

import numpy as np

import gradc
from gradc import f64, i64


# issue #18 class 2, as filed: forward mode of a written F-ordered parameter
@gradc.export
def f(x0: bool, b1: f64[::1, :], z2: f64, n3: i64) -> f64:
    b1[1, 1] = 1.0
    return 1.0


t_f = gradc.jvp(f, wrt="b1")


# an F-ordered parameter written with an active value, in every flavour
@gradc.export
def fw(x: f64, b: f64[::1, :]) -> f64:
    b[1, 0] = x * b[0, 1]
    return b[1, 0] * b[1, 1] + math.sin(b[0, 0]) * x


d_fw = gradc.grad(fw, wrt=("x", "b"))
vg_fw = gradc.value_and_grad(fw, wrt=("x", "b"))
v_fw = gradc.vjp(fw, wrt=("x", "b"))
t_fw = gradc.jvp(fw, wrt=("x", "b"))
r_fw = gradc.reverse(fw, x=gradc.Active, b=gradc.Duplicated)
fw_fw = gradc.forward(fw, x=gradc.Duplicated, b=gradc.Duplicated)
# b outside wrt, yet written with an active value: a scratch tangent/shadow carries it
d_fw_x = gradc.grad(fw, wrt="x")
t_fw_x = gradc.jvp(fw, wrt="x")
r_fw_x = gradc.reverse(fw, x=gradc.Active)
fw_fw_x = gradc.forward(fw, x=gradc.Duplicated)


# any-strides and C-ordered parameters outside wrt written with active values
@gradc.export
def store_param(x: f64, a: f64[:], c: f64[:, ::1]) -> f64:
    a[0] = x
    c[1, 0] = a[0] * x
    return a[0] * 2.0 + c[1, 0] * c[0, 0]


d_store_param = gradc.grad(store_param, wrt="x")
t_store_param = gradc.jvp(store_param, wrt="x")
r_store_param = gradc.reverse(store_param, x=gradc.Active)
fw_store_param = gradc.forward(store_param, x=gradc.Duplicated)


# array results: an F parameter returned, a new array computed from one
@gradc.export
def ret_param(b: f64[::1, :], x: f64) -> f64[::1, :]:
    b[0, 0] = b[0, 0] * x
    return b


t_ret_param = gradc.jvp(ret_param, wrt=("b", "x"))


@gradc.export
def ret_new(b: f64[::1, :], x: f64) -> f64[:, :]:
    out = np.zeros((2, 3))
    out[0, 1] = b[0, 1] * x
    out[1, 2] = b[1, 0] * b[1, 2]
    return out


v_ret_new = gradc.vjp(ret_new, wrt=("b", "x"))
t_ret_new = gradc.jvp(ret_new, wrt=("b", "x"))


# issue #18 class 5, as filed
@gradc.export("f64(f64, bool)")
def early(y, c):
    if c:
        return 0.0
    else:
        y = y * 3.0
    return y


t_early = gradc.jvp(early, wrt="y")
d_early = gradc.grad(early, wrt="y")


@gradc.export("f64(f64, f64[:])")
def for_else(x0, b1):
    for i3 in range(1, 1, 1):  # noqa: B007 (as filed)
        pass
    else:
        for x7 in b1:  # noqa: B007
            x0 += 1
    return x0


t_for_else = gradc.jvp(for_else, wrt=("x0", "b1"))
d_for_else = gradc.grad(for_else, wrt=("x0", "b1"))


@gradc.export("f64(f64[:], f64)")
def g(a0, y1):
    t9 = np.full(3, y1)
    return t9[1]


t_g = gradc.jvp(g, wrt=("a0", "y1"))
d_g = gradc.grad(g, wrt=("a0", "y1"))


# float32: f64 -> f32 stores and np.full with an f32 dtype, loads cast back to f64
@gradc.export
def through_f32(x: f64, y: f64) -> f64:
    a = np.zeros(2, dtype=np.float32)
    a[0] = x * 3.0
    b = np.full(2, y, dtype=np.float32)
    return a[0] * 2.0 + b[1] * x


d_through_f32 = gradc.grad(through_f32, wrt=("x", "y"))
t_through_f32 = gradc.jvp(through_f32, wrt=("x", "y"))


# arrays reached through tuples and through a helper returning its argument: a store
# through one name is read through the other (forward mode gave a zero tangent; reverse
# mode refuses these with a compile-time error)
def _ident(a):
    return a


@gradc.export
def alias_ret(x: f64, n: i64) -> f64:
    a = np.zeros(n + 1)
    b = _ident(a)
    b[0] = x * x
    return a[0] * 3.0 + b[n] * x


t_alias_ret = gradc.jvp(alias_ret, wrt="x")


def _through_tuple(p, k):
    c = p[0]
    c[k] = p[1] * 2.0
    return 1


@gradc.export
def tuple_to_helper(x: f64, n: i64) -> f64:
    a = np.zeros(n + 1)
    _through_tuple((a, x), 0)
    return a[0] * x


t_tuple_to_helper = gradc.jvp(tuple_to_helper, wrt="x")


@gradc.export
def tuple_phi(x: f64, c: bool) -> f64:
    a = np.zeros(2)
    b = np.zeros(2)
    t = (a, 1) if c else (b, 2)
    u = t[0]
    u[1] = x * x
    return a[1] + b[1] * 2.0


t_tuple_phi = gradc.jvp(tuple_phi, wrt="x")


@gradc.export
def array_in_tuple(x: f64, n: i64) -> f64:
    b = np.zeros(2)
    t = (b, n)
    c = t[0]
    c[0] = x * x
    return b[0] * 3.0


t_array_in_tuple = gradc.jvp(array_in_tuple, wrt="x")
d_array_in_tuple = gradc.grad(array_in_tuple, wrt="x")
