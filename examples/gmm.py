"""ADBench's Gaussian mixture model objective, and its gradient, compiled by gradc.

The log-likelihood of ``n`` points ``x`` (rows, dimension ``d``) under a mixture of ``k``
Gaussians with a Wishart prior on the precision matrices, exactly as ADBench defines it
(https://github.com/microsoft/ADBench, see examples/data/adbench/README.md)::

    Q_j = diag(exp(q_j)) + strictly-lower(l_j)          (icf_j = [q_j, l_j])
    f = - n·d/2 · log(2π)
        + Σ_i logsumexp_j( alpha_j + Σ q_j − ½ ‖Q_j (x_i − mu_j)‖² )
        − n · logsumexp_j(alpha_j)
        + Σ_j ( ½ γ² (‖exp(q_j)‖² + ‖l_j‖²) − m · Σ q_j )
        − k · C(d, γ, m)

Written with plain loops and ``math`` only, so that the same file runs as Python (slowly)
and is compiled by ``gradc build examples/gmm.py`` together with its derivatives:

* ``gmm_objective(alphas, means, icf, x, gamma, m)`` — the objective;
* ``d_gmm`` — the gradient with respect to ``alphas``, ``means`` and ``icf`` (reverse
  mode), three arrays shaped like those parameters;
* ``vg_gmm`` — the objective and that gradient together;
* ``t_gmm`` — a forward-mode directional derivative along a tangent of ``alphas``.

Each logsumexp subtracts its maximum before exponentiating. The log-multivariate-gamma
constant in C depends only on ``d``, ``gamma`` and ``m``: it is computed with
``math.lgamma`` on values that carry no derivative, so no derivative rule is needed.

Inputs are read by :func:`examples.gmm_io.read_gmm_instance` (plain Python); see
examples/gmm_main.py.
"""

import math

import numpy as np

import gradc
from gradc import f64, i64


def _log_multigamma(a, p):
    """log Γ_p(a) = p(p−1)/4 · log π + Σ_{j=1..p} log Γ(a + (1 − j)/2)."""
    out = 0.25 * p * (p - 1) * math.log(math.pi)
    for j in range(1, p + 1):
        out += math.lgamma(a + 0.5 * (1 - j))
    return out


def _log_wishart_prior(icf, gamma, m, d):
    """Σ_j ( ½ γ² (‖exp(q_j)‖² + ‖l_j‖²) − m Σ q_j ) − k · C(d, γ, m)."""
    k = icf.shape[0]
    n_p = d + m + 1
    out = 0.0
    for j in range(k):
        frobenius = 0.0
        sum_q = 0.0
        for r in range(d):
            q = icf[j, r]
            frobenius += math.exp(2.0 * q)
            sum_q += q
        for t in range(d, icf.shape[1]):
            frobenius += icf[j, t] * icf[j, t]
        out += 0.5 * gamma * gamma * frobenius - m * sum_q
    c = n_p * d * (math.log(gamma) - 0.5 * math.log(2.0)) - _log_multigamma(0.5 * n_p, d)
    return out - k * c


def _logsumexp(v, count):
    """log Σ_j exp(v[j]) over the first ``count`` entries, with the maximum factored out."""
    mx = v[0]
    for j in range(1, count):
        if v[j] > mx:
            mx = v[j]
    s = 0.0
    for j in range(count):
        s += math.exp(v[j] - mx)
    return mx + math.log(s)


@gradc.export
def gmm_objective(
    alphas: f64[:], means: f64[:, :], icf: f64[:, :], x: f64[:, :], gamma: f64, m: i64
) -> f64:
    n, d = x.shape
    k = alphas.shape[0]

    # per-component constants: exp of the diagonal of Q_j and Σ q_j
    qdiag = np.zeros((k, d))
    sum_qs = np.zeros(k)
    for j in range(k):
        s = 0.0
        for r in range(d):
            qdiag[j, r] = math.exp(icf[j, r])
            s += icf[j, r]
        sum_qs[j] = s

    inner = np.zeros(k)
    slse = 0.0
    for i in range(n):
        for j in range(k):
            # ‖Q_j (x_i − mu_j)‖², row r of Q_j: exp(q_jr) on the diagonal, then L[r, c]
            # for c < r, stored column by column after the d diagonal entries of icf_j
            sqsum = 0.0
            for r in range(d):
                v = qdiag[j, r] * (x[i, r] - means[j, r])
                for c in range(r):
                    idx = d + c * (2 * d - c - 1) // 2 + (r - c - 1)
                    v += icf[j, idx] * (x[i, c] - means[j, c])
                sqsum += v * v
            inner[j] = alphas[j] + sum_qs[j] - 0.5 * sqsum
        slse += _logsumexp(inner, k)

    const = -0.5 * n * d * math.log(2.0 * math.pi)
    return const + slse - n * _logsumexp(alphas, k) + _log_wishart_prior(icf, gamma, m, d)


d_gmm = gradc.grad(gmm_objective, wrt=("alphas", "means", "icf"))
vg_gmm = gradc.value_and_grad(gmm_objective, wrt=("alphas", "means", "icf"))
t_gmm = gradc.jvp(gmm_objective, wrt=("alphas",))

#: Arguments for ``gradc bench examples/gmm.py``: sizes consistent with one another
#: (k = 10 components in dimension d = 4, icf with d + d(d-1)/2 = 10 columns, n = 100
#: points), small enough for the plain-Python baseline to take milliseconds.
__gradc_bench__ = {"shape": "alphas=10 means=10x4 icf=10x10 x=100x4", "args": {"m": 0}}
