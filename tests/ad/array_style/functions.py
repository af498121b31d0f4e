"""Thirty-two whole functions in NumPy array style (issue 11), modelled on the numeric Python
people write: losses, softmax and logsumexp, normalisation layers, an attention block,
stencils written with slices, regressions, an MLP and an RNN, a Gaussian mixture,
physics energies. Each is differentiated with respect to every float parameter
(tests/ad/test_ad_array_style.py; the conventions are tests/ad/corpus/_harness.py's).
"""

import numpy as np

import gradc
from gradc import f64

DIMS = {
    "gaussian_loss": {"n": (1, 4), "m": (2, 3)},
    "mse_loss": {"n": (1, 6)},
    "huber_loss": {"n": (1, 6)},
    "logsumexp": {"n": (1, 6)},
    "softmax_cross_entropy": {"m": (1, 2), "n": (1, 3)},
    "layer_norm": {"m": (1, 2), "n": (2, 3)},
    "attention": {"m": (1, 2), "n": (1, 2), "d": (1, 2)},
    "stencil_energy": {"m": (3, 4), "n": (3, 4)},
    "ridge_loss": {"m": (1, 3), "n": (1, 2)},
    "logistic_nll": {"m": (1, 3), "n": (1, 2)},
    "mlp_layer": {"n": (1, 2), "h": (1, 3)},
    "gmm_loglik": {"n": (1, 3), "k": (1, 2)},
    "spring_energy": {"n": (2, 6)},
    "lennard_jones": {"n": (1, 4)},
    "gravity_energy": {"n": (1, 4)},
    "poly_fit": {"n": (1, 5)},
    "cosine_similarity": {"n": (1, 6)},
    "rbf_kernel_sum": {"m": (1, 3), "d": (1, 2)},
    "total_variation": {"m": (1, 3), "n": (1, 3)},
    "log_cosh_loss": {"n": (1, 6)},
    "kl_divergence": {"n": (1, 6)},
    "batch_norm": {"m": (2, 3), "n": (1, 2)},
    "compound_returns": {"n": (1, 6)},
    "heat_steps": {"n": (3, 6)},
    "rosenbrock": {"n": (2, 6)},
    "mds_stress": {"n": (1, 3)},
    "poisson_nll": {"m": (1, 3), "n": (1, 2)},
    "conv1d_valid": {"n": (3, 6)},
    "rnn_unrolled": {"t": (1, 3), "h": (1, 2)},
    "mean_variance": {"n": (1, 2)},
    "hinge_loss": {"m": (1, 3), "n": (1, 2)},
    "feature_map": {"n": (1, 3)},
}

SHAPES = {
    "gaussian_loss": {"x": ("n",), "w": ("m", "n")},
    "mse_loss": {"pred": ("n",), "target": ("n",)},
    "huber_loss": {"r": ("n",)},
    "logsumexp": {"x": ("n",)},
    "softmax_cross_entropy": {"logits": ("m", "n"), "labels": ("m", "n")},
    "layer_norm": {"x": ("m", "n"), "gamma": ("n",), "beta": ("n",)},
    "attention": {"q": ("m", "d"), "k": ("n", "d"), "v": ("n", "d")},
    "stencil_energy": {"u": ("m", "n")},
    "ridge_loss": {"X": ("m", "n"), "y": ("m",), "w": ("n",)},
    "logistic_nll": {"X": ("m", "n"), "y": ("m",), "w": ("n",)},
    "mlp_layer": {"x": ("n",), "W1": ("h", "n"), "b1": ("h",), "w2": ("h",)},
    "gmm_loglik": {"x": ("n",), "mu": ("k",), "log_sigma": ("k",), "logits": ("k",)},
    "spring_energy": {"pos": ("n",)},
    "lennard_jones": {"x": ("n",), "y": ("n",)},
    "gravity_energy": {"pos": ("n", 2), "mass": ("n",)},
    "poly_fit": {"x": ("n",), "y": ("n",), "c": (3,)},
    "cosine_similarity": {"a": ("n",), "b": ("n",)},
    "rbf_kernel_sum": {"X": ("m", "d")},
    "total_variation": {"u": ("m", "n")},
    "log_cosh_loss": {"pred": ("n",), "target": ("n",)},
    "kl_divergence": {"p_logits": ("n",), "q_logits": ("n",)},
    "batch_norm": {"x": ("m", "n"), "gamma": ("n",), "beta": ("n",)},
    "compound_returns": {"r": ("n",)},
    "heat_steps": {"u": ("n",)},
    "rosenbrock": {"x": ("n",)},
    "mds_stress": {"X": ("n", 2), "D": ("n", "n")},
    "poisson_nll": {"X": ("m", "n"), "y": ("m",), "w": ("n",)},
    "conv1d_valid": {"x": ("n",), "k": (3,)},
    "rnn_unrolled": {"X": ("t", "h"), "W": ("h", "h"), "h0": ("h",)},
    "mean_variance": {"w": ("n",), "mu": ("n",), "C": ("n", "n")},
    "hinge_loss": {"X": ("m", "n"), "y": ("m",), "w": ("n",)},
    "feature_map": {"x": ("n",), "w": ("n",), "v": ("n",)},
}

DOMAINS = {
    "gaussian_loss": {"sigma": (0.5, 2.0)},
    "huber_loss": {"delta": (0.3, 1.5)},
    "layer_norm": {"x": (-2.0, 2.0)},
    "cosine_similarity": {"a": (0.2, 2.0), "b": (0.2, 2.0)},
    "rbf_kernel_sum": {"gamma": (0.1, 1.0)},
    "ridge_loss": {"lam": (0.0, 1.0)},
    "compound_returns": {"r": (-1.0, 1.0)},
    "heat_steps": {"alpha": (0.05, 0.25)},
    "mean_variance": {"gamma": (0.5, 2.0)},
    "gravity_energy": {"mass": (0.5, 2.0)},
}


def _gaps(a):
    """Differences between all pairs of elements (kinks of max/min ties)."""
    v = np.ravel(a)
    return tuple(float(v[i] - v[j]) for i in range(len(v)) for j in range(i))


def _gaussian_p(x, mu, sigma):
    z = (x - mu) / sigma
    return np.exp(-0.5 * z * z) / (sigma * np.sqrt(2.0 * np.pi))


KINKS = {
    "gaussian_loss": lambda x, mu, sigma, w: _gaps(_gaussian_p(x, mu, sigma)),
    "huber_loss": lambda r, delta: (*r, *(np.abs(r) - delta)),
    "batch_norm": lambda x, gamma, beta: tuple(np.std(x, axis=0)),
    "layer_norm": lambda x, gamma, beta: tuple(np.std(x, axis=1) * 10.0),
    "hinge_loss": lambda X, y, w: tuple(1.0 - y * (X @ w)),
}


@gradc.export
def gaussian_loss(x: f64[:], mu: f64, sigma: f64, w: f64[:, :]) -> f64:
    z = (x - mu) / sigma
    p = np.exp(-0.5 * z * z) / (sigma * np.sqrt(2.0 * np.pi))
    h = np.tanh(w @ p)
    return np.sum(h[1:] - h[:-1]) + p.max()


@gradc.export
def mse_loss(pred: f64[:], target: f64[:]) -> f64:
    return np.mean((pred - target) ** 2)


@gradc.export
def huber_loss(r: f64[:], delta: f64) -> f64:
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)))


@gradc.export
def logsumexp(x: f64[:]) -> f64:
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


@gradc.export
def softmax_cross_entropy(logits: f64[:, :], labels: f64[:, :]) -> f64:
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(labels * logp, axis=1))


@gradc.export
def layer_norm(x: f64[:, :], gamma: f64[:], beta: f64[:]) -> f64:
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * gamma + beta
    return np.sum(np.sin(y))


@gradc.export
def attention(q: f64[:, :], k: f64[:, :], v: f64[:, :]) -> f64:
    s = q @ k.T / np.sqrt(q.shape[1])
    s = s - s.max(axis=1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=1, keepdims=True)
    o = p @ v
    return np.sum(o * o)


@gradc.export
def stencil_energy(u: f64[:, :]) -> f64:
    lap = u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] - 4.0 * u[1:-1, 1:-1]
    return 0.5 * np.sum(lap * lap) + np.sum(u[0] * u[-1])


@gradc.export
def ridge_loss(X: f64[:, :], y: f64[:], w: f64[:], lam: f64) -> f64:
    r = X @ w - y
    return r @ r + lam * (w @ w)


@gradc.export
def logistic_nll(X: f64[:, :], y: f64[:], w: f64[:], b: f64) -> f64:
    z = X @ w + b
    return np.sum(np.log1p(np.exp(-z)) + (1.0 - y) * z)


@gradc.export
def mlp_layer(x: f64[:], W1: f64[:, :], b1: f64[:], w2: f64[:]) -> f64:
    hidden = np.tanh(W1 @ x + b1)
    return w2 @ hidden


@gradc.export
def gmm_loglik(x: f64[:], mu: f64[:], log_sigma: f64[:], logits: f64[:]) -> f64:
    diff = x[:, None] - mu[None, :]
    sigma = np.exp(log_sigma)
    logp = -0.5 * (diff / sigma) ** 2 - log_sigma - 0.5 * np.log(2.0 * np.pi)
    log_w = logits - np.log(np.sum(np.exp(logits)))
    a = logp + log_w
    m = np.max(a, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(a - m), axis=1)))


@gradc.export
def spring_energy(pos: f64[:], k: f64) -> f64:
    stretch = np.diff(pos) - 1.0
    return 0.5 * k * np.sum(stretch**2)


@gradc.export
def lennard_jones(x: f64[:], y: f64[:]) -> f64:
    dx = x[:, None] - x[None, :]
    dy = y[:, None] - y[None, :]
    r2 = dx * dx + dy * dy + 0.5 + 0.5 * np.eye(len(x))
    inv6 = 1.0 / r2**3
    return 0.5 * np.sum(4.0 * (inv6 * inv6 - inv6) * (1.0 - np.eye(len(x))))


@gradc.export
def gravity_energy(pos: f64[:, :], mass: f64[:]) -> f64:
    d = pos[:, np.newaxis, :] - pos[np.newaxis, :, :]
    r = np.sqrt(np.sum(d * d, axis=-1) + 0.1)
    pair = np.outer(mass, mass) / r
    return -0.5 * (np.sum(pair) - np.trace(pair))


@gradc.export
def poly_fit(x: f64[:], y: f64[:], c: f64[:]) -> f64:
    pred = c[0] + c[1] * x + c[2] * x**2
    return np.mean((pred - y) ** 2)


@gradc.export
def cosine_similarity(a: f64[:], b: f64[:]) -> f64:
    return np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))


@gradc.export
def rbf_kernel_sum(X: f64[:, :], gamma: f64) -> f64:
    sq = np.sum(X * X, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    return np.sum(np.exp(-gamma * d2))


@gradc.export
def total_variation(u: f64[:, :]) -> f64:
    dx = u[:, 1:] - u[:, :-1]
    dy = u[1:, :] - u[:-1, :]
    return np.sum(np.sqrt(dx * dx + 1e-2)) + np.sum(np.sqrt(dy * dy + 1e-2))


@gradc.export
def log_cosh_loss(pred: f64[:], target: f64[:]) -> f64:
    return np.sum(np.log(np.cosh(pred - target)))


@gradc.export
def kl_divergence(p_logits: f64[:], q_logits: f64[:]) -> f64:
    log_p = p_logits - np.log(np.sum(np.exp(p_logits)))
    log_q = q_logits - np.log(np.sum(np.exp(q_logits)))
    return np.sum(np.exp(log_p) * (log_p - log_q))


@gradc.export
def batch_norm(x: f64[:, :], gamma: f64[:], beta: f64[:]) -> f64:
    xhat = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-3)
    y = gamma * xhat + beta
    return np.sum(np.cos(y) * y)


@gradc.export
def compound_returns(r: f64[:]) -> f64:
    wealth = np.cumprod(1.0 + 0.1 * r)
    total = np.cumsum(r)
    return np.sum(np.log(wealth)) + np.mean(total * total)


@gradc.export
def heat_steps(u: f64[:], alpha: f64) -> f64:
    v = u.copy()
    for _ in range(3):
        v[1:-1] = v[1:-1] + alpha * (v[2:] - 2.0 * v[1:-1] + v[:-2])
    return np.sum(v * v)


@gradc.export
def rosenbrock(x: f64[:]) -> f64:
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


@gradc.export
def mds_stress(X: f64[:, :], D: f64[:, :]) -> f64:
    diff = X[:, None, :] - X[None, :, :]
    d = np.sqrt(np.sum(diff**2, axis=2) + 1e-3)
    return np.sum((d - D) ** 2)


@gradc.export
def poisson_nll(X: f64[:, :], y: f64[:], w: f64[:]) -> f64:
    eta = X @ w
    return np.sum(np.exp(eta) - y * eta)


@gradc.export
def conv1d_valid(x: f64[:], k: f64[:]) -> f64:
    y = k[0] * x[:-2] + k[1] * x[1:-1] + k[2] * x[2:]
    return np.sum(np.tanh(y))


@gradc.export
def rnn_unrolled(X: f64[:, :], W: f64[:, :], h0: f64[:]) -> f64:
    h = h0
    for t in range(X.shape[0]):
        h = np.tanh(W @ h + X[t])
    return np.sum(h * h)


@gradc.export
def mean_variance(w: f64[:], mu: f64[:], C: f64[:, :], gamma: f64) -> f64:
    cov = C @ C.T
    return mu @ w - 0.5 * gamma * (w @ (cov @ w))


@gradc.export
def hinge_loss(X: f64[:, :], y: f64[:], w: f64[:]) -> f64:
    margins = np.maximum(0.0, 1.0 - y * (X @ w))
    return np.mean(margins) + 0.1 * np.dot(w, w)


@gradc.export
def feature_map(x: f64[:], w: f64[:], v: f64[:]) -> f64:
    phi = np.concatenate((x, x * x, np.sin(x)))
    coef = np.hstack((w, v, w * v))
    return phi @ coef + np.sum(np.stack((x, w)).T @ np.ones(2))


d_gaussian_loss = gradc.grad(gaussian_loss, wrt=("x", "mu", "sigma", "w"))
t_gaussian_loss = gradc.jvp(gaussian_loss, wrt=("x", "mu", "sigma", "w"))
d_mse_loss = gradc.grad(mse_loss, wrt=("pred", "target"))
t_mse_loss = gradc.jvp(mse_loss, wrt=("pred", "target"))
d_huber_loss = gradc.grad(huber_loss, wrt=("r", "delta"))
t_huber_loss = gradc.jvp(huber_loss, wrt=("r", "delta"))
d_logsumexp = gradc.grad(logsumexp, wrt=("x",))
t_logsumexp = gradc.jvp(logsumexp, wrt=("x",))
d_softmax_cross_entropy = gradc.grad(softmax_cross_entropy, wrt=("logits", "labels"))
t_softmax_cross_entropy = gradc.jvp(softmax_cross_entropy, wrt=("logits", "labels"))
d_layer_norm = gradc.grad(layer_norm, wrt=("x", "gamma", "beta"))
t_layer_norm = gradc.jvp(layer_norm, wrt=("x", "gamma", "beta"))
d_attention = gradc.grad(attention, wrt=("q", "k", "v"))
t_attention = gradc.jvp(attention, wrt=("q", "k", "v"))
d_stencil_energy = gradc.grad(stencil_energy, wrt=("u",))
t_stencil_energy = gradc.jvp(stencil_energy, wrt=("u",))
d_ridge_loss = gradc.grad(ridge_loss, wrt=("X", "y", "w", "lam"))
t_ridge_loss = gradc.jvp(ridge_loss, wrt=("X", "y", "w", "lam"))
d_logistic_nll = gradc.grad(logistic_nll, wrt=("X", "y", "w", "b"))
t_logistic_nll = gradc.jvp(logistic_nll, wrt=("X", "y", "w", "b"))
d_mlp_layer = gradc.grad(mlp_layer, wrt=("x", "W1", "b1", "w2"))
t_mlp_layer = gradc.jvp(mlp_layer, wrt=("x", "W1", "b1", "w2"))
d_gmm_loglik = gradc.grad(gmm_loglik, wrt=("x", "mu", "log_sigma", "logits"))
t_gmm_loglik = gradc.jvp(gmm_loglik, wrt=("x", "mu", "log_sigma", "logits"))
d_spring_energy = gradc.grad(spring_energy, wrt=("pos", "k"))
t_spring_energy = gradc.jvp(spring_energy, wrt=("pos", "k"))
d_lennard_jones = gradc.grad(lennard_jones, wrt=("x", "y"))
t_lennard_jones = gradc.jvp(lennard_jones, wrt=("x", "y"))
d_gravity_energy = gradc.grad(gravity_energy, wrt=("pos", "mass"))
t_gravity_energy = gradc.jvp(gravity_energy, wrt=("pos", "mass"))
d_poly_fit = gradc.grad(poly_fit, wrt=("x", "y", "c"))
t_poly_fit = gradc.jvp(poly_fit, wrt=("x", "y", "c"))
d_cosine_similarity = gradc.grad(cosine_similarity, wrt=("a", "b"))
t_cosine_similarity = gradc.jvp(cosine_similarity, wrt=("a", "b"))
d_rbf_kernel_sum = gradc.grad(rbf_kernel_sum, wrt=("X", "gamma"))
t_rbf_kernel_sum = gradc.jvp(rbf_kernel_sum, wrt=("X", "gamma"))
d_total_variation = gradc.grad(total_variation, wrt=("u",))
t_total_variation = gradc.jvp(total_variation, wrt=("u",))
d_log_cosh_loss = gradc.grad(log_cosh_loss, wrt=("pred", "target"))
t_log_cosh_loss = gradc.jvp(log_cosh_loss, wrt=("pred", "target"))
d_kl_divergence = gradc.grad(kl_divergence, wrt=("p_logits", "q_logits"))
t_kl_divergence = gradc.jvp(kl_divergence, wrt=("p_logits", "q_logits"))
d_batch_norm = gradc.grad(batch_norm, wrt=("x", "gamma", "beta"))
t_batch_norm = gradc.jvp(batch_norm, wrt=("x", "gamma", "beta"))
d_compound_returns = gradc.grad(compound_returns, wrt=("r",))
t_compound_returns = gradc.jvp(compound_returns, wrt=("r",))
d_heat_steps = gradc.grad(heat_steps, wrt=("u", "alpha"))
t_heat_steps = gradc.jvp(heat_steps, wrt=("u", "alpha"))
d_rosenbrock = gradc.grad(rosenbrock, wrt=("x",))
t_rosenbrock = gradc.jvp(rosenbrock, wrt=("x",))
d_mds_stress = gradc.grad(mds_stress, wrt=("X", "D"))
t_mds_stress = gradc.jvp(mds_stress, wrt=("X", "D"))
d_poisson_nll = gradc.grad(poisson_nll, wrt=("X", "y", "w"))
t_poisson_nll = gradc.jvp(poisson_nll, wrt=("X", "y", "w"))
d_conv1d_valid = gradc.grad(conv1d_valid, wrt=("x", "k"))
t_conv1d_valid = gradc.jvp(conv1d_valid, wrt=("x", "k"))
d_rnn_unrolled = gradc.grad(rnn_unrolled, wrt=("X", "W", "h0"))
t_rnn_unrolled = gradc.jvp(rnn_unrolled, wrt=("X", "W", "h0"))
d_mean_variance = gradc.grad(mean_variance, wrt=("w", "mu", "C", "gamma"))
t_mean_variance = gradc.jvp(mean_variance, wrt=("w", "mu", "C", "gamma"))
d_hinge_loss = gradc.grad(hinge_loss, wrt=("X", "y", "w"))
t_hinge_loss = gradc.jvp(hinge_loss, wrt=("X", "y", "w"))
d_feature_map = gradc.grad(feature_map, wrt=("x", "w", "v"))
t_feature_map = gradc.jvp(feature_map, wrt=("x", "w", "v"))
