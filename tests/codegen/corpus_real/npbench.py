"""NPBench and PolyBench kernels that polybench.py and dpbench.py do not hold: Levinson-
Durbin, Gram-Schmidt, triangular solves and products (trisolv, trmm, symm, syr2k),
gemver, 3mm, ludcmp, FDTD, Deriche's recursive filter, Nussinov's folding table, a CSR
sparse matrix-vector product, the COSMO horizontal diffusion stencil, NPBench's MLP and
NHWC convolution, max pooling, the cavity-flow source term and pressure Poisson solve,
the nbody accelerations by broadcasting, ``compute`` and CRC-16.

Written for gradc's differential tests (never copied): each function is what a NumPy
user writes (NPBench's whole-array style).
"""

import numpy as np

import gradc
from gradc import f64, i64

# a big module: its compiled tests are slow (idioms_more.py holds the default-run idioms)
SLOW = True

SHAPES = {
    "durbin": {"r": ("n",)},
    "gramschmidt": {"A": ("m", "n")},
    "trisolv": {"L": ("n", "n"), "b": ("n",)},
    "trmm": {"A": ("m", "m"), "B": ("m", "n")},
    "symm": {"C": ("m", "n"), "A": ("m", "m"), "B": ("m", "n")},
    "syr2k": {"C": ("n", "n"), "A": ("n", "m"), "B": ("n", "m")},
    "gemver": {
        "A": ("n", "n"),
        **{v: ("n",) for v in ("u1", "v1", "u2", "v2", "w", "x", "y", "z")},
    },
    "k3mm": {"A": ("i", "k"), "B": ("k", "j"), "C": ("j", "m"), "D": ("m", "l")},
    "ludcmp": {"A0": ("n", "n"), "b": ("n",)},
    "fdtd_2d": {"ex": ("n", "m"), "ey": ("n", "m"), "hz": ("n", "m"), "_fict_": ("t",)},
    "deriche": {"imgIn": ("h", "w")},
    "nussinov": {"seq": ("n",)},
    "spmv": {"A_row": ("r",), "A_col": (8,), "A_val": (8,), "x": (6,)},
    "hdiff": {"in_field": ("i", "j", "k"), "coeff": ("i", "j", "k")},
    "mlp": {
        "inp": ("b", "d"),
        "w1": ("d", "h"),
        "b1": ("h",),
        "w2": ("h", "h"),
        "b2": ("h",),
        "w3": ("h", "c"),
        "b3": ("c",),
    },
    "conv2d_nhwc": {"inp": ("n", "h", "w", "c"), "weights": ("k", "k", "c", "o")},
    "maxpool2d": {"x": ("n", "h", "w", "c")},
    "build_up_b": {"u": ("n", "m"), "v": ("n", "m")},
    "pressure_poisson": {"p": ("n", "m"), "b": ("n", "m")},
    "nbody_acc": {"pos": ("n", 3), "mass": ("n", 1)},
    "compute": {"array_1": ("m", "n"), "array_2": ("m", "n")},
    "crc16": {"data": ("n",)},
}

DIMS = {
    "durbin": {"n": (1, 6)},
    "gramschmidt": {"m": (3, 6), "n": (1, 3)},
    "deriche": {"h": (2, 6), "w": (2, 6)},
    "spmv": {"r": (1, 6)},
    "hdiff": {"i": (4, 7), "j": (4, 7), "k": (0, 3)},
    "mlp": {"h": (1, 4), "c": (1, 4)},
    "conv2d_nhwc": {"h": (3, 5), "w": (3, 5), "k": (1, 3), "c": (0, 2), "o": (0, 2)},
    "maxpool2d": {"c": (0, 2)},
    "pressure_poisson": {"n": (2, 6), "m": (2, 6)},
    "fdtd_2d": {"n": (1, 6)},
}

ELEMENTS = {
    "durbin": {"r": (-0.2, 0.2)},
    "trisolv": {"L": (1.0, 10.0)},
    "deriche": {"imgIn": (0.0, 1.0)},
    "nussinov": {"seq": (0, 3)},
    "spmv": {"A_row": (0, 8), "A_col": (-6, 5)},
    "nbody_acc": {"mass": (0.1, 2.0)},
    "crc16": {"data": (0, 255)},
}

DOMAINS = {
    "deriche": {"alpha": (0.1, 1.0)},
    "build_up_b": {"rho": (0.5, 2.0), "dt": (0.01, 0.1), "dx": (0.1, 1.0), "dy": (0.1, 1.0)},
    "pressure_poisson": {"nit": (0, 3), "dx": (0.1, 1.0), "dy": (0.1, 1.0)},
    "nbody_acc": {"G": (0.5, 2.0), "softening": (0.1, 1.0)},
}

RAISES = {}

MUTATES = {
    "trmm": ("B",),
    "symm": ("C",),
    "syr2k": ("C",),
    "gemver": ("A", "x", "w"),
    "fdtd_2d": ("ex", "ey", "hz"),
    "pressure_poisson": ("p",),
}

ULP = {"deriche", "mlp"}

SUMMED = {"durbin", "gramschmidt", "trisolv", "trmm", "symm", "syr2k", "gemver", "k3mm"}
SUMMED |= {"ludcmp", "spmv", "mlp", "conv2d_nhwc", "nbody_acc", "deriche", "pressure_poisson"}
SUMMED |= {"build_up_b", "hdiff"}


@gradc.export
def durbin(r: f64[:]) -> f64[:]:
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


@gradc.export
def gramschmidt(A: f64[:, :]) -> tuple[f64[:, :], f64[:, :]]:
    A = A.copy()
    Q = np.zeros_like(A)
    R = np.zeros((A.shape[1], A.shape[1]), dtype=A.dtype)
    for k in range(A.shape[1]):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, A.shape[1]):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


@gradc.export
def trisolv(L: f64[:, :], b: f64[:]) -> f64[:]:
    x = np.zeros_like(b)
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


@gradc.export
def trmm(alpha: f64, A: f64[:, :], B: f64[:, :]) -> None:
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] += np.dot(A[i + 1 :, i], B[i + 1 :, j])
    B *= alpha


@gradc.export
def symm(alpha: f64, beta: f64, C: f64[:, :], A: f64[:, :], B: f64[:, :]) -> None:
    temp2 = np.empty((C.shape[1],), dtype=C.dtype)
    C *= beta
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = B[:i, j] @ A[i, :i]
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2


@gradc.export
def syr2k(alpha: f64, beta: f64, C: f64[:, :], A: f64[:, :], B: f64[:, :]) -> None:
    for i in range(A.shape[0]):
        C[i, : i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, : i + 1] += A[: i + 1, k] * alpha * B[i, k] + B[: i + 1, k] * alpha * A[i, k]


@gradc.export
def gemver(
    alpha: f64,
    beta: f64,
    A: f64[:, :],
    u1: f64[:],
    v1: f64[:],
    u2: f64[:],
    v2: f64[:],
    w: f64[:],
    x: f64[:],
    y: f64[:],
    z: f64[:],
) -> None:
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x


@gradc.export
def k3mm(A: f64[:, :], B: f64[:, :], C: f64[:, :], D: f64[:, :]) -> f64[:, :]:
    E = A @ B
    F = C @ D
    return E @ F


@gradc.export
def ludcmp(A0: f64[:, :], b: f64[:]) -> f64[:]:
    n = A0.shape[0]
    A = A0 + 100.0 * n * np.eye(n)
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            A[i, j] -= A[i, :i] @ A[:i, j]
    y = np.zeros_like(b)
    for i in range(n):
        y[i] = b[i] - A[i, :i] @ y[:i]
    x = np.zeros_like(b)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1 :] @ x[i + 1 :]) / A[i, i]
    return x


@gradc.export
def fdtd_2d(ex: f64[:, :], ey: f64[:, :], hz: f64[:, :], _fict_: f64[:]) -> None:
    for t in range(_fict_.shape[0]):
        ey[0, :] = _fict_[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


@gradc.export
def deriche(alpha: f64, imgIn: f64[:, :]) -> f64[:, :]:
    k = (1.0 - np.exp(-alpha)) ** 2 / (1.0 + 2.0 * alpha * np.exp(-alpha) - np.exp(2.0 * alpha))
    a1 = a5 = k
    a2 = a6 = k * np.exp(-alpha) * (alpha - 1.0)
    a3 = a7 = k * np.exp(-alpha) * (alpha + 1.0)
    a4 = a8 = -k * np.exp(-2.0 * alpha)
    b1 = 2.0 ** (-alpha)
    b2 = -np.exp(-2.0 * alpha)
    c1 = c2 = 1.0
    H, W = imgIn.shape

    y1 = np.empty_like(imgIn)
    y1[:, 0] = a1 * imgIn[:, 0]
    y1[:, 1] = a1 * imgIn[:, 1] + a2 * imgIn[:, 0] + b1 * y1[:, 0]
    for j in range(2, W):
        y1[:, j] = a1 * imgIn[:, j] + a2 * imgIn[:, j - 1] + b1 * y1[:, j - 1] + b2 * y1[:, j - 2]
    y2 = np.empty_like(imgIn)
    y2[:, -1] = 0.0
    y2[:, -2] = a3 * imgIn[:, -1]
    for j in range(W - 3, -1, -1):
        y2[:, j] = (
            a3 * imgIn[:, j + 1] + a4 * imgIn[:, j + 2] + b1 * y2[:, j + 1] + b2 * y2[:, j + 2]
        )
    imgOut = c1 * (y1 + y2)

    y1[0, :] = a5 * imgOut[0, :]
    y1[1, :] = a5 * imgOut[1, :] + a6 * imgOut[0, :] + b1 * y1[0, :]
    for i in range(2, H):
        y1[i, :] = a5 * imgOut[i, :] + a6 * imgOut[i - 1, :] + b1 * y1[i - 1, :] + b2 * y1[i - 2, :]
    y2[-1, :] = 0.0
    y2[-2, :] = a7 * imgOut[-1, :]
    for i in range(H - 3, -1, -1):
        y2[i, :] = (
            a7 * imgOut[i + 1, :] + a8 * imgOut[i + 2, :] + b1 * y2[i + 1, :] + b2 * y2[i + 2, :]
        )
    imgOut[:] = c2 * (y1 + y2)
    return imgOut


def match(b1, b2):
    if b1 + b2 == 3:
        return 1
    else:
        return 0


@gradc.export
def nussinov(seq: i64[:]) -> i64[:, :]:
    N = seq.shape[0]
    table = np.zeros((N, N), np.int64)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < N:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1] + match(seq[i], seq[j]))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
    return table


@gradc.export
def spmv(A_row: i64[:], A_col: i64[:], A_val: f64[:], x: f64[:]) -> f64[:]:
    y = np.empty(A_row.size - 1, dtype=A_val.dtype)
    for i in range(A_row.size - 1):
        cols = A_col[A_row[i] : A_row[i + 1]]
        vals = A_val[A_row[i] : A_row[i + 1]]
        y[i] = vals @ x[cols]
    return y


@gradc.export
def hdiff(in_field: f64[:, :, :], coeff: f64[:, :, :]) -> f64[:, :, :]:
    I = in_field.shape[0] - 4  # noqa: E741
    J = in_field.shape[1] - 4
    lap_field = 4.0 * in_field[1 : I + 3, 1 : J + 3, :] - (
        in_field[2 : I + 4, 1 : J + 3, :]
        + in_field[0 : I + 2, 1 : J + 3, :]
        + in_field[1 : I + 3, 2 : J + 4, :]
        + in_field[1 : I + 3, 0 : J + 2, :]
    )
    res = lap_field[1:, 1 : J + 1, :] - lap_field[:-1, 1 : J + 1, :]
    flx_field = np.where(
        (res * (in_field[2 : I + 3, 2 : J + 2, :] - in_field[1 : I + 2, 2 : J + 2, :])) > 0,
        0,
        res,
    )
    res = lap_field[1 : I + 1, 1:, :] - lap_field[1 : I + 1, :-1, :]
    fly_field = np.where(
        (res * (in_field[2 : I + 2, 2 : J + 3, :] - in_field[2 : I + 2, 1 : J + 2, :])) > 0,
        0,
        res,
    )
    out_field = np.empty((I, J, in_field.shape[2]))
    out_field[:, :, :] = in_field[2 : I + 2, 2 : J + 2, :] - coeff[2:-2, 2:-2, :] * (
        flx_field[1:, :, :] - flx_field[:-1, :, :] + fly_field[:, 1:, :] - fly_field[:, :-1, :]
    )
    return out_field


def relu(x):
    return np.maximum(x, 0)


def softmax_last(x):
    tmp_max = np.max(x, axis=-1, keepdims=True)
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.sum(tmp_out, axis=-1, keepdims=True)
    return tmp_out / tmp_sum


@gradc.export
def mlp(
    inp: f64[:, :],
    w1: f64[:, :],
    b1: f64[:],
    w2: f64[:, :],
    b2: f64[:],
    w3: f64[:, :],
    b3: f64[:],
) -> f64[:, :]:
    x = relu(inp @ w1 + b1)
    x = relu(x @ w2 + b2)
    x = softmax_last(x @ w3 + b3)
    return x


@gradc.export
def conv2d_nhwc(inp: f64[:, :, :, :], weights: f64[:, :, :, :]) -> f64[:, :, :, :]:
    K = weights.shape[0]
    N = inp.shape[0]
    H_out = inp.shape[1] - K + 1
    W_out = inp.shape[2] - K + 1
    C_out = weights.shape[3]
    output = np.empty((N, H_out, W_out, C_out), dtype=np.float64)
    for i in range(H_out):
        for j in range(W_out):
            output[:, i, j, :] = np.sum(
                inp[:, i : i + K, j : j + K, :, np.newaxis] * weights[np.newaxis, :, :, :],
                axis=(1, 2, 3),
            )
    return output


@gradc.export
def maxpool2d(x: f64[:, :, :, :]) -> f64[:, :, :, :]:
    output = np.empty((x.shape[0], x.shape[1] // 2, x.shape[2] // 2, x.shape[3]), dtype=x.dtype)
    for i in range(x.shape[1] // 2):
        for j in range(x.shape[2] // 2):
            output[:, i, j, :] = np.max(x[:, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2, :], axis=(1, 2))
    return output


@gradc.export
def build_up_b(rho: f64, dt: f64, dx: f64, dy: f64, u: f64[:, :], v: f64[:, :]) -> f64[:, :]:
    b = np.zeros_like(u)
    b[1:-1, 1:-1] = rho * (
        1
        / dt
        * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))
        - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)) ** 2
        - 2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx))
        - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) ** 2
    )
    return b


@gradc.export
def pressure_poisson(nit: i64, p: f64[:, :], dx: f64, dy: f64, b: f64[:, :]) -> None:
    pn = np.empty_like(p)
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = (
            (pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2
        ) / (2 * (dx**2 + dy**2)) - dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1]
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0


@gradc.export
def nbody_acc(pos: f64[:, :], mass: f64[:, :], G: f64, softening: f64) -> f64[:, :]:
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r3 = dx**2 + dy**2 + dz**2 + softening**2
    inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0] ** (-1.5)
    ax = G * (dx * inv_r3) @ mass
    ay = G * (dy * inv_r3) @ mass
    az = G * (dz * inv_r3) @ mass
    return np.hstack((ax, ay, az))


@gradc.export
def compute(array_1: i64[:, :], array_2: i64[:, :], a: i64, b: i64, c: i64) -> i64[:, :]:
    return np.clip(array_1, 2, 10) * a + array_2 * b + c


@gradc.export
def crc16(data: i64[:], poly: i64 = 0x8408) -> i64:
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & b
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur_byte >>= 1
    crc = ~crc & 0xFFFF
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return crc & 0xFFFF
