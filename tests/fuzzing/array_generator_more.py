"""More of NumPy for the array fuzzer: the ``arrays-more`` profile (issue 18: "it grows with
the language").

``generate_arrays_more(seed)`` returns a module of the same form as
:func:`tests.fuzzing.array_generator.generate_arrays` (``f`` returns anything, ``g`` an
f64 that is differentiated), whose expressions also draw on the array programming of
issue 11 the base generator leaves out:

* more ufuncs (``np.log``/``log2``/``log10``, ``tan``, ``sinh``, ``cbrt``, ``rint``,
  ``reciprocal``, ``np.power``, ``np.logaddexp``, ``np.add`` ... as functions);
* products: ``@``, ``np.dot``, ``np.outer``, ``np.inner``, ``np.trace``,
  ``np.einsum('ij,ij->i')``;
* shape functions: ``np.sort``/``np.argsort``/``np.median`` along an axis, ``np.flip``,
  ``np.roll``, ``np.cumprod``, ``np.tril``/``np.triu``, ``np.diag``, ``.flatten()``,
  ``np.concatenate``/``np.vstack``/``np.hstack``/``np.stack``;
* indexing by a mask (``a[a > t]``) and by an integer array (``a[np.argsort(b)]``);
  ``np.argsort`` with ``kind='stable'``: NumPy's default kind orders ties as its SIMD
  sort leaves them, gradc's sort is always stable (docs/supported.md; seed 620470);
* ``np.linalg.det``/``inv``/``solve``/``cholesky`` of matrices made square and well
  conditioned (``x @ x.T + k * np.eye(n)``), and of the plain operands now and then.

As in the base generator, NumPy itself decides which candidates are valid: each is
evaluated on dummies of the parameters and kept only if NumPy computes a value gradc can
type (or, now and then, raises ValueError/IndexError). The base profile ``arrays`` is left
as it was, so that the seeds of earlier runs still name the same programs.
"""

from __future__ import annotations

import numpy as np

from tests.fuzzing.array_generator import ArrayGen

MORE_UNARY = (
    "log",
    "log2",
    "log10",
    "tan",
    "sinh",
    "cosh",
    "arcsinh",
    "cbrt",
    "rint",
    "reciprocal",
    "fabs",
    "deg2rad",
    "isnan",
    "isfinite",
)
MORE_BINARY = ("power", "logaddexp", "add", "subtract", "multiply", "divide")
#: Substrings that name each construct (for the short run's covering seeds).
MORE_CONSTRUCTS = (
    "np.log(",
    "np.power(",
    " @ ",
    "np.dot(",
    "np.outer(",
    "np.trace(",
    "np.einsum(",
    "np.sort(",
    "np.argsort(",
    "np.median(",
    "np.flip(",
    "np.roll(",
    "np.cumprod(",
    "np.tril(",
    "np.diag(",
    ".flatten()",
    "np.concatenate(",
    "np.vstack(",
    "np.stack(",
    "np.linalg.det(",
    "np.linalg.inv(",
    "np.linalg.solve(",
    "np.linalg.cholesky(",
)


class MoreArrayGen(ArrayGen):
    """The base generator with :meth:`more`'s constructs mixed into every expression."""

    def expr(self, d: int) -> str:
        if d > 0 and self.chance(0.3):
            got = self.more(d)
            if got is not None:
                return got
        return super().expr(d)

    def more(self, d: int) -> str | None:
        """One of the module docstring's constructs over subexpressions of depth ``d - 1``
        (None when the operand drawn does not suit it)."""
        a = self.expr(d - 1)
        k = self.r.random()
        if k < 0.18:
            return f"np.{self.r.choice(MORE_UNARY)}({a})"
        if k < 0.28:
            return f"np.{self.r.choice(MORE_BINARY)}({a}, {self.expr(d - 1)})"
        value = self.typed(a)
        if not isinstance(value, np.ndarray):
            return None
        if k < 0.45:
            b = self.array_expr(d - 1)
            return None if b is None else self.product(a, value, b)
        if k < 0.65:
            return self.shape_function(a, value)
        if k < 0.75:
            b = self.array_expr(d - 1)
            return None if b is None else self.join(a, b)
        if k < 0.85:
            return self.indexing(a, value)
        return self.linalg(a, value)

    def array_expr(self, d: int) -> str | None:
        """An expression of depth ``d`` whose value is an array (None after a few tries):
        gradc's products and joins take arrays (``np.dot(a, 2.0)`` is a compile error)."""
        for _ in range(3):
            b = self.expr(d)
            if isinstance(self.typed(b), np.ndarray):
                return b
        return None

    def product(self, a: str, value: np.ndarray, b: str) -> str:
        k = self.r.random()
        if k < 0.35:
            return f"({a} @ {b})" if self.chance(0.5) else f"({a} @ ({b}).T)"
        if k < 0.55:
            return f"np.dot({a}, {b})"
        if k < 0.7:
            return f"np.outer({a}, {b})"
        if k < 0.8:
            return f"np.inner({a}, {b})"
        if k < 0.9 and value.ndim == 2:
            return f"np.trace({a})"
        return f"np.einsum('ij,ij->i', {a}, {b})"

    def shape_function(self, a: str, value: np.ndarray) -> str:
        axis = self.r.randrange(-value.ndim, value.ndim)
        k = self.r.random()
        if k < 0.2:
            return f"np.sort({a}, axis={self.r.choice([axis, axis, 'None'])})"
        if k < 0.3:
            return f"np.argsort({a}, axis={axis}, kind='stable')"
        if k < 0.4:
            return f"np.median({a}, axis={self.r.choice([axis, 'None'])})"
        if k < 0.5:
            return f"np.flip({a}, axis={axis})" if self.chance(0.6) else f"np.flip({a})"
        if k < 0.6:
            return f"np.roll({a}, {self.r.choice([1, -1, 2])}, axis={axis})"
        if k < 0.7:
            return f"np.cumprod({a}, axis={axis})"
        if k < 0.8 and value.ndim == 2:
            return f"np.{self.r.choice(['tril', 'triu'])}({a}, {self.r.choice([0, 1, -1])})"
        if k < 0.9:
            return f"np.diag({a})"
        return f"({a}).flatten()"

    def join(self, a: str, b: str) -> str:
        k = self.r.random()
        if k < 0.4:
            return f"np.concatenate(({a}, {b}), axis={self.r.choice([0, -1])})"
        if k < 0.6:
            return f"np.vstack(({a}, {b}))"
        if k < 0.8:
            return f"np.hstack(({a}, {b}))"
        return f"np.stack(({a}, {b}))"

    def indexing(self, a: str, value: np.ndarray) -> str:
        if self.chance(0.5):
            return f"({a})[({a}) > {self.r.choice(['0', '0.5', '-1'])}]"
        if value.ndim == 1:
            return f"({a})[np.argsort({a}, kind='stable')]"
        return f"({a})[np.argsort(({a})[:, 0], kind='stable')]"

    def linalg(self, a: str, value: np.ndarray) -> str | None:
        if value.ndim != 2:
            return None
        if value.shape[0] == value.shape[1] and value.dtype.kind == "f" and self.chance(0.3):
            square = a  # the operand itself: may be singular (NumPy's error then)
        else:
            # scaled by 1.1: an integer matrix's det is an integer that the two
            # eliminations round to either side, and int() of it differs by one (seed 630430)
            k = self.r.choice(["1.0", "2.0"])
            square = f"(({a}) @ ({a}).T * 1.1 + {k} * np.eye({value.shape[0]}))"
        k = self.r.random()
        if k < 0.3:
            return f"np.linalg.det({square})"
        if k < 0.55:
            return f"np.linalg.inv({square})"
        if k < 0.8:
            return f"np.linalg.solve({square}, {self.expr(0)})"
        return f"np.linalg.cholesky({square})"


def generate_arrays_more(seed: int, size: int = 6) -> str:
    """The ``arrays-more`` module of ``seed`` (deterministic; see the module docstring)."""
    return MoreArrayGen(seed, size).module()


__all__ = ["MORE_CONSTRUCTS", "MoreArrayGen", "generate_arrays_more"]
