# fuzz: class=nan_grad key=nan_grad:grad seed=20066 input_seed=20066 opt=0
# where: grad:g0_f(np.array([1.1106396806973686, 1.9856368627173042, -0.17607815633008528, -0.6897176941952221]) [S])
# non-finite derivative nan; other mode [], FD [0.0, 0.0]
import gradc
from gradc import f64

FUZZ = {"f": {"a0": ("f64", (4,), "A")}}


def h0(x0, x1, x2):
    pass


def h1(c0, x1):
    pass


@gradc.export
def f(a0: f64[:]) -> f64:
    v22 = 1.0 != (1.0 > 1.171)
    for i23 in range(2, 6, 2):
        for i24 in range(len(a0)):
            for i25 in range(5):
                a0[v22 % 4] *= a0[i25 % 4] / (a0[3] * a0[3])
    return 1.0


g0_f = gradc.grad(f, wrt="a0")
