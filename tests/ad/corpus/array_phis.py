"""Array phis: one name bound to different arrays on different paths (``src = a if c > 0
else b``), a parameter merged with a local array, a name alternating between two
parameters inside a loop, and writes through such a name. The reverse sweep must send
each element's adjoint to the shadow of the array the name held at that point. Kept in
their own module: a construct without a derivative rule fails the build of the whole
module.
"""

import math

import numpy as np

import gradc
from gradc import f64, i64

SHAPES = {
    "pick_param": {"a": ("n",), "b": ("n",)},
    "pick_local": {"a": ("n",)},
    "pick_local_first": {"a": ("n",)},
    "alternate": {"a": ("n",), "b": ("n",)},
    "alternate_rows": {"a": (3, "m"), "b": (3, "m")},
    "write_through": {"a": ("n",), "b": ("n",)},
    "write_through_local": {"a": ("n",)},
    "nested_pick": {"a": ("n",), "b": ("n",), "d": ("n",)},
    "call_pick": {"a": ("n",), "b": ("n",)},
    "phi_argument": {"a": ("n",), "b": ("n",)},
    "phi_of_call_result": {"a": ("n",)},
}

DIMS = {
    "pick_param": {"n": (1, 5)},
    "pick_local": {"n": (1, 5)},
    "pick_local_first": {"n": (1, 5)},
    "alternate": {"n": (1, 5)},
    "alternate_rows": {"m": (1, 3)},
    "write_through": {"n": (1, 5)},
    "write_through_local": {"n": (1, 5)},
    "nested_pick": {"n": (1, 5)},
    "call_pick": {"n": (1, 5)},
    "phi_argument": {"n": (1, 5)},
    "phi_of_call_result": {"n": (1, 5)},
}

DOMAINS = {"alternate": {"k": (0, 5)}, "alternate_rows": {"k": (0, 4)}}

KINKS = {
    "pick_param": lambda a, b, c: (c,),
    "pick_local": lambda a, c: (c,),
    "pick_local_first": lambda a, c: (c,),
    "write_through": lambda a, b, c: (c,),
    "write_through_local": lambda a, c: (c,),
    "nested_pick": lambda a, b, d, c, e: (c, e),
    "call_pick": lambda a, b, c: (c,),
    "phi_argument": lambda a, b, c: (c,),
    "phi_of_call_result": lambda a, c: (c,),
}


@gradc.export
def pick_param(a: f64[:], b: f64[:], c: f64) -> f64:
    src = a if c > 0.0 else b
    s = 0.0
    for i in range(len(src)):
        s += src[i] * src[i] * c + a[i] * b[i]
    return s


@gradc.export
def pick_local(a: f64[:], c: f64) -> f64:
    t = np.zeros(len(a))
    for i in range(len(a)):
        t[i] = math.sin(a[i]) * c
    src = t if c > 0.0 else a
    s = 0.0
    for i in range(len(src)):
        s += src[i] * a[i]
    return s


@gradc.export
def pick_local_first(a: f64[:], c: f64) -> f64:
    t = np.zeros(len(a))
    src = a if c > 0.0 else t
    for i in range(len(a)):
        t[i] = a[i] * a[i] + c
    s = 0.0
    for i in range(len(a)):
        s += src[i] * c
    return s


@gradc.export
def alternate(a: f64[:], b: f64[:], k: i64) -> f64:
    s = 0.0
    src = b
    for j in range(k):
        if j % 2 == 0:
            src = a
        else:
            src = b
        for i in range(len(src)):
            s = s * 0.5 + src[i] * (j + 1.0)
    return s + src[0]


@gradc.export
def alternate_rows(a: f64[:, :], b: f64[:, :], k: i64) -> f64:
    s = 0.0
    src = a
    for j in range(k):
        r = j % 3
        for i in range(src.shape[1]):
            s += src[r, i] * src[(r + 1) % 3, i]
        src = b if j % 2 == 0 else a
    return s


@gradc.export
def write_through(a: f64[:], b: f64[:], c: f64) -> f64:
    src = a if c > 0.0 else b
    for i in range(len(src)):
        src[i] = src[i] * src[i] + c
    s = 0.0
    for i in range(len(a)):
        s += a[i] * b[i]
    return s


@gradc.export
def write_through_local(a: f64[:], c: f64) -> f64:
    t = np.zeros(len(a))
    src = t if c > 0.0 else a
    for i in range(len(a)):
        src[i] = a[i] * c + math.cos(src[i])
    s = 0.0
    for i in range(len(a)):
        s += t[i] * a[i] + a[i]
    return s


@gradc.export
def nested_pick(a: f64[:], b: f64[:], d: f64[:], c: f64, e: f64) -> f64:
    src = a if c > 0.0 else b
    if e > 0.0:
        src = d
    s = 0.0
    for i in range(len(src)):
        s += math.exp(src[i]) * e
    return s


d_pick_param = gradc.grad(pick_param, wrt=("a", "b", "c"))
t_pick_param = gradc.jvp(pick_param, wrt=("a", "b", "c"))
d_pick_local = gradc.grad(pick_local, wrt=("a", "c"))
t_pick_local = gradc.jvp(pick_local, wrt=("a", "c"))
d_pick_local_first = gradc.grad(pick_local_first, wrt=("a", "c"))
t_pick_local_first = gradc.jvp(pick_local_first, wrt=("a", "c"))
d_alternate = gradc.grad(alternate, wrt=("a", "b"))
t_alternate = gradc.jvp(alternate, wrt=("a", "b"))
d_alternate_rows = gradc.grad(alternate_rows, wrt=("a", "b"))
t_alternate_rows = gradc.jvp(alternate_rows, wrt=("a", "b"))
d_write_through = gradc.grad(write_through, wrt=("a", "b", "c"))
t_write_through = gradc.jvp(write_through, wrt=("a", "b", "c"))
d_write_through_local = gradc.grad(write_through_local, wrt=("a", "c"))
t_write_through_local = gradc.jvp(write_through_local, wrt=("a", "c"))
d_nested_pick = gradc.grad(nested_pick, wrt=("a", "b", "d", "c", "e"))
t_nested_pick = gradc.jvp(nested_pick, wrt=("a", "b", "d", "c", "e"))


def _pick_dot(a: f64[:], b: f64[:], c: f64) -> f64:
    src = b if c > 0.0 else a
    s = 0.0
    for i in range(len(a)):
        s += src[i] * a[i]
        src[i] = s * c
    return s + src[0]


@gradc.export
def call_pick(a: f64[:], b: f64[:], c: f64) -> f64:
    return _pick_dot(a, b, c) + _pick_dot(b, a, -c)


d_call_pick = gradc.grad(call_pick, wrt=("a", "b", "c"))
t_call_pick = gradc.jvp(call_pick, wrt=("a", "b", "c"))


def _weighted(src: f64[:], w: f64) -> f64:
    s = 0.0
    for i in range(len(src)):
        s += math.sin(src[i]) * w
        src[i] = src[i] * w
    return s


def _squares(a: f64[:]) -> f64[:]:
    t = np.zeros(len(a))
    for i in range(len(a)):
        t[i] = a[i] * a[i]
    return t


@gradc.export
def phi_argument(a: f64[:], b: f64[:], c: f64) -> f64:
    src = a if c > 0.0 else b
    return _weighted(src, c) + _weighted(b, 0.5) + a[0]


@gradc.export
def phi_of_call_result(a: f64[:], c: f64) -> f64:
    sq = _squares(a)
    src = sq if c > 0.0 else a
    s = 0.0
    for i in range(len(src)):
        s += src[i] * c + sq[i]
    return s


d_phi_argument = gradc.grad(phi_argument, wrt=("a", "b", "c"))
t_phi_argument = gradc.jvp(phi_argument, wrt=("a", "b", "c"))
d_phi_of_call_result = gradc.grad(phi_of_call_result, wrt=("a", "c"))
t_phi_of_call_result = gradc.jvp(phi_of_call_result, wrt=("a", "c"))
