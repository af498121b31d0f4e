"""gradc: ahead-of-time compiler for numeric Python with automatic differentiation.

This module is the public façade, and importing it is cheap: it imports no numpy, no
llvmlite, no click and no compiler code (``tests/test_layering.py`` checks this).

In a module compiled with ``gradc build``, the static front end reads this façade's names
from the *source* (it never imports or runs the module)::

    import gradc
    from gradc import f64, i64

    @gradc.export
    def poly(x: f64, n: i64) -> f64: ...

    @gradc.export("f64(f64, f64)")
    def hypot_clamped(a, b): ...

Imported as plain Python (*runtime mode*, ``gradc.runtime_mode``), :func:`export` returns
an :class:`~gradc.runtime_mode.ExportedFunction`: its first call loads the module's fresh
artifact, or compiles the module and stores the artifact in the user cache directory, and
calls the compiled function. With ``GRADC_PLAIN_PYTHON=1`` it returns the function
unchanged. The type markers are inert annotations. Built artifacts are loaded with
:func:`load`.

:func:`grad`, :func:`value_and_grad`, :func:`jvp`, :func:`vjp` and :func:`hessian` are declarations the
front end recognises in source; in plain Python they return a
:class:`DerivativePlaceholder`, which in runtime mode calls the compiled derivative (the
artifact's export named like the module-level variable it is assigned to) and otherwise
raises :class:`NotImplementedError`.
"""

from __future__ import annotations

import sys

from gradc._version import __version__ as __version__

# ``import gradc`` stays cheap (a process that only loads an artifact pays for it, issue
# 13): no ``typing`` (its names are for the type checker only, which takes any name
# ``TYPE_CHECKING`` as true) and no ``runtime_mode`` until an export is decorated.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal, TypeVar, overload

    from gradc.artifacts.loader.cpu import Library
    from gradc.artifacts.loader.cuda import CudaLibrary

    _F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "Active",
    "Activity",
    "ArrayTypeMarker",
    "Const",
    "CustomRuleFunction",
    "DerivativePlaceholder",
    "Duplicated",
    "ScalarTypeMarker",
    "bool_",
    "boolean",
    "broadcast_call",
    "checkpoint",
    "custom_jvp",
    "custom_vjp",
    "export",
    "f32",
    "f64",
    "forward",
    "grad",
    "hessian",
    "i32",
    "i64",
    "jacfwd",
    "jacrev",
    "jvp",
    "kernel",
    "load",
    "reverse",
    "runtime_stats",
    "value_and_grad",
    "vectorize",
    "vjp",
]

# ---------------------------------------------------------------------------- type markers


class ArrayTypeMarker:
    """An array annotation such as ``f64[:]`` or ``f64[:, ::1]``.

    Attributes:
        dtype: the element type marker (``f64`` ...).
        ndim: number of dimensions (>= 1).
        layout: ``"C"`` when the last slice is ``::1`` (C-contiguous, Numba's spelling),
            ``"F"`` when the first of two or more is (Fortran order), else ``"A"`` (any
            strides).
    """

    __slots__ = ("dtype", "layout", "ndim")

    def __init__(self, dtype: ScalarTypeMarker, ndim: int, layout: str = "A") -> None:
        if ndim < 1:
            raise ValueError(f"array annotations need at least one dimension, got {ndim}")
        if layout not in ("A", "C", "F"):
            raise ValueError(f"layout must be 'A', 'C' or 'F', got {layout!r}")
        self.dtype = dtype
        self.ndim = ndim
        self.layout = layout

    def __repr__(self) -> str:
        dims = [":"] * self.ndim
        if self.layout == "C":
            dims[-1] = "::1"
        elif self.layout == "F":
            dims[0] = "::1"
        return f"{self.dtype.name}[{', '.join(dims)}]"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArrayTypeMarker):
            return NotImplemented
        return (self.dtype, self.ndim, self.layout) == (other.dtype, other.ndim, other.layout)

    def __hash__(self) -> int:
        return hash((self.dtype, self.ndim, self.layout))


class ScalarTypeMarker:
    """A scalar annotation (``f64``, ``f32``, ``i64``, ``i32``, ``bool``).

    Subscripting with slices makes an array annotation: ``f64[:]`` has ndim 1,
    ``f64[:, :]`` ndim 2, ``f64[:, ::1]`` is C-contiguous.

    Attributes:
        name: the gradc type name used in signatures and the manifest (``"f64"``).
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScalarTypeMarker):
            return NotImplemented
        return self.name == other.name

    def __hash__(self) -> int:
        return hash(("gradc.ScalarTypeMarker", self.name))

    def __getitem__(self, dims: slice | tuple[slice, ...]) -> ArrayTypeMarker:
        items = dims if isinstance(dims, tuple) else (dims,)
        if not items or not all(isinstance(d, slice) for d in items):
            raise TypeError(f"array annotations are written {self.name}[:] or {self.name}[:, :]")
        for d in items:
            if d.start is not None or d.stop is not None or d.step not in (None, 1):
                raise TypeError(f"array annotations take only ':' or '::1', got {d!r}")
        # as the compiler reads them (compiler/frontend/annotations.py): '::1' on the last
        # axis is C order, on the first axis of two or more is Fortran order
        unit = [d.step == 1 for d in items]
        layout = "A"
        if unit[-1] and not any(unit[:-1]):
            layout = "C"
        elif unit[0] and len(unit) > 1 and not any(unit[1:]):
            layout = "F"
        elif any(unit):
            raise TypeError("'::1' may mark only the first (F order) or last (C order) axis")
        return ArrayTypeMarker(self, len(items), layout)


f64 = ScalarTypeMarker("f64")
f32 = ScalarTypeMarker("f32")
i64 = ScalarTypeMarker("i64")
i32 = ScalarTypeMarker("i32")
boolean = ScalarTypeMarker("bool")
bool_ = boolean


# ---------------------------------------------------------------------------- export


if TYPE_CHECKING:

    @overload
    def export(fn: _F, /) -> _F: ...
    @overload
    def export(
        signature: str | list[str] | tuple[str, ...] | None = None,
        /,
        *,
        fastmath: bool = ...,
        boundscheck: bool = ...,
    ) -> Callable[[_F], _F]: ...


def export(fn_or_signature: Any = None, /, **options: bool) -> Any:
    """Mark a function for ``gradc build``; in plain Python, make it a compiled export.

    Usable bare (``@gradc.export``, types from annotations), with a Numba-style
    signature string (``@gradc.export("f64(f64, f64)")``) or a list of them (one
    specialisation each, dispatched on the argument types), and with per-function
    ``fastmath=``/``boundscheck=`` (bool literals), all read by ``gradc build`` from the
    source. Run as Python, it returns a :class:`~gradc.runtime_mode.ExportedFunction`
    that compiles (or loads) on first call (``fn.py_func`` is the Python function), or
    the function itself when ``GRADC_PLAIN_PYTHON=1``.

    Raises:
        TypeError: the argument is neither a function nor signature strings, or an
            option other than ``fastmath``/``boundscheck``.
    """
    unknown = sorted(set(options) - {"fastmath", "boundscheck"})
    if unknown:
        raise TypeError(f"gradc.export got an unexpected keyword argument {unknown[0]!r}")
    signatures = fn_or_signature
    listed = isinstance(signatures, list | tuple) and all(isinstance(s, str) for s in signatures)
    if signatures is None or isinstance(signatures, str) or listed:
        return _identity
    if callable(fn_or_signature):
        return _exported(fn_or_signature)
    raise TypeError(
        "gradc.export takes a function, a signature string such as 'f64(f64, f64)' or a "
        "list of them, "
        f"got {type(fn_or_signature).__name__}"
    )


def _identity(fn: _F) -> _F:
    if not callable(fn):
        raise TypeError(f"@gradc.export(...) decorates a function, got {type(fn).__name__}")
    return _exported(fn)


def _exported(fn: _F) -> _F:
    """``fn`` in plain-Python mode or when it is no Python function, else its proxy."""
    from gradc import runtime_mode

    if runtime_mode.env_flag(runtime_mode.PLAIN_PYTHON_ENV) or not hasattr(fn, "__code__"):
        return fn
    return runtime_mode.ExportedFunction(fn)  # type: ignore[return-value]


def kernel(fn: Callable[..., Any], /) -> Any:
    """Mark a CUDA kernel (a per-thread body, see :mod:`gradc.cuda`) for ``gradc build``.

    ``gradc build --target cuda`` compiles it to PTX and cubins; the CPU build compiles it
    to a grid loop. In plain Python it returns a :class:`gradc.cuda.Kernel`, launched as
    ``k[grid, block](*args)``, which runs the body once per thread, sequentially.

    Raises:
        TypeError: ``fn`` is not a function.
    """
    if not callable(fn):
        raise TypeError(f"@gradc.kernel decorates a function, got {type(fn).__name__}")
    from gradc.cuda import Kernel

    return Kernel(fn)


def vectorize(signature: str, /) -> Callable[[Callable[..., Any]], Any]:
    """Mark a scalar function to be mapped over arrays: ``@gradc.vectorize("f64(f64, f64)")``.

    ``gradc build`` compiles it to a kernel (CPU grid loop, and PTX and cubins with
    ``--target cuda``) that :func:`broadcast_call` runs over NumPy-broadcast arrays,
    choosing the grid. In plain Python it returns a :class:`gradc.vectorized.Vectorized`
    applying the function elementwise.

    Raises:
        ValueError: a malformed signature string.
    """
    from gradc.vectorized import Vectorized

    def decorate(fn: Callable[..., Any]) -> Any:
        return Vectorized(fn, signature)

    return decorate


def broadcast_call(fn: Any, *args: Any, out: Any) -> None:
    """``out[...] = fn(*args)`` elementwise with broadcasting, for a vectorised function's
    kernel (CPU build, CUDA) or its plain-Python form: :func:`gradc.vectorized.broadcast_call`."""
    from gradc.vectorized import broadcast_call as call

    call(fn, *args, out=out)


# ---------------------------------------------------------------------------- derivatives


class DerivativePlaceholder:
    """What :func:`grad` and friends return in plain Python: a declaration.

    In runtime mode (``fn`` is an :class:`~gradc.runtime_mode.ExportedFunction`), calling
    it calls the compiled derivative: the export of the module's artifact named like the
    module-level variable the declaration is assigned to. Otherwise calling it raises
    :class:`NotImplementedError`: derivatives are produced only by ``gradc build``.

    Attributes:
        kind: ``"grad"``, ``"value_and_grad"``, ``"jvp"`` or ``"vjp"``.
        fn: the differentiated function.
        args, kwargs: the other arguments of the declaration (e.g. ``argnums``).
    """

    __slots__ = ("_compiled", "args", "fn", "kind", "kwargs")

    def __init__(self, kind: str, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]):
        self.kind = kind
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self._compiled: Callable[..., Any] | None = None

    def __repr__(self) -> str:
        name = getattr(self.fn, "__qualname__", repr(self.fn))
        return f"<gradc.{self.kind}({name}) declaration>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        compiled = self._compiled
        root = self.fn
        while isinstance(root, DerivativePlaceholder | CustomRuleFunction):
            root = root.fn  # a derivative of a derivative, an export with a custom rule
        # an ExportedFunction exists only once runtime_mode is imported (by :func:`export`)
        runtime_mode = sys.modules.get("gradc.runtime_mode")
        if compiled is None and runtime_mode and isinstance(root, runtime_mode.ExportedFunction):
            compiled = self._compiled = runtime_mode.resolve_derivative(self, root)
        if compiled is not None:
            return compiled(*args, **kwargs)
        raise self._not_built()

    def __getitem__(self, launch: Any) -> Callable[..., Any]:
        """A kernel derivative's launch ``d_k[grid, block]``: in plain Python, calling it
        raises :class:`NotImplementedError` as calling the declaration does (kernels'
        derivatives run only from a built artifact)."""

        def launch_not_built(*args: Any, **kwargs: Any) -> Any:
            raise self._not_built()

        return launch_not_built

    def _not_built(self) -> NotImplementedError:
        name = getattr(self.fn, "__qualname__", repr(self.fn))
        return NotImplementedError(
            f"gradc.{self.kind}({name}) has no plain-Python implementation: build the module "
            "with `gradc build` and call the derivative from the artifact (gradc.load)"
        )


def grad(fn: Any, *args: Any, **kwargs: Any) -> DerivativePlaceholder:
    """Declare the gradient of scalar-valued ``fn`` (reverse mode); built by ``gradc build``.

    Like every derivative export, the compiled gradient raises ``ValueError`` before it
    runs when two array arguments share memory and ``fn`` writes one of them (docs/ad.md
    "Arrays that share memory").
    """
    return DerivativePlaceholder("grad", fn, args, kwargs)


def value_and_grad(fn: Any, *args: Any, **kwargs: Any) -> DerivativePlaceholder:
    """Declare ``fn``'s value together with its gradient; built by ``gradc build``."""
    return DerivativePlaceholder("value_and_grad", fn, args, kwargs)


def jvp(fn: Any, *args: Any, **kwargs: Any) -> DerivativePlaceholder:
    """Declare the Jacobian-vector product of ``fn`` (forward mode); built by ``gradc build``."""
    return DerivativePlaceholder("jvp", fn, args, kwargs)


def vjp(fn: Any, *args: Any, **kwargs: Any) -> DerivativePlaceholder:
    """Declare the vector-Jacobian product of ``fn`` (reverse mode); built by ``gradc build``."""
    return DerivativePlaceholder("vjp", fn, args, kwargs)


def hessian(fn: Any, *args: Any, **kwargs: Any) -> DerivativePlaceholder:
    """Declare the Hessian of scalar-valued ``fn`` (forward-over-reverse); built by
    ``gradc build``.

    ``wrt`` names f64 scalar or 1-D f64 array parameters. One parameter: its block, a
    float for a scalar, an ``(n, n)`` array for a length-``n`` array. A tuple ``wrt``:
    a tuple of tuples, ``H[i][j]`` of shape ``shape(p_i) + shape(p_j)`` holding
    ``∂²f/∂p_i∂p_j`` (JAX's ``hessian`` layout); docs/ad.md "Higher order".
    """
    return DerivativePlaceholder("hessian", fn, args, kwargs)


def jacfwd(fn: Any, *args: Any, **kwargs: Any) -> DerivativePlaceholder:
    """Declare the Jacobian of ``fn`` by forward mode (JAX's ``jacfwd``); built by
    ``gradc build``.

    ``fn`` returns an f64, an f64 array or (nested) tuples of those; ``wrt`` names f64 scalar or
    f64 array parameters. Block ``J[i][j]`` has shape ``shape(out_i) + shape(p_j)``
    (JAX's layout; tuple levels as ``argnums``). ``width=k`` pushes k tangents per sweep;
    docs/ad.md "Jacobians".
    """
    return DerivativePlaceholder("jacfwd", fn, args, kwargs)


def jacrev(fn: Any, *args: Any, **kwargs: Any) -> DerivativePlaceholder:
    """Declare the Jacobian of ``fn`` by reverse mode, one VJP per element of the result
    (JAX's ``jacrev``); built by ``gradc build``. ``fn`` returns an f64 or an f64 array;
    the layout is :func:`jacfwd`'s; docs/ad.md "Jacobians".
    """
    return DerivativePlaceholder("jacrev", fn, args, kwargs)


def reverse(fn: Any, *args: Any, **kwargs: Any) -> DerivativePlaceholder:
    """Declare the low-level reverse-mode derivative of ``fn`` (Enzyme-style).

    Annotate parameters with :data:`Duplicated` (float arrays: the caller passes a shadow
    right after the array and the gradient is accumulated into it), :data:`Active` (float
    scalars: their adjoints are returned after the value) or :data:`Const` (the default),
    by keyword (``x=gradc.Duplicated``) or one per parameter in order. The compiled
    function returns ``(value, *adjoints of the Active parameters)``; docs/ad.md.
    Two ``Duplicated`` arrays that share memory take one shared shadow (the derivative
    flows through the shared memory); the compiled function raises ``ValueError`` for
    overlaps it cannot follow (docs/ad.md "Arrays that share memory").
    """
    return DerivativePlaceholder("reverse", fn, args, kwargs)


def forward(fn: Any, *args: Any, **kwargs: Any) -> DerivativePlaceholder:
    """Declare the low-level forward-mode derivative of ``fn`` (Enzyme-style).

    Each :data:`Duplicated` parameter is followed by its tangent in the compiled
    signature; the result is ``(value, directional derivative)``; docs/ad.md.
    """
    return DerivativePlaceholder("forward", fn, args, kwargs)


class CustomRuleFunction:
    """What :func:`custom_jvp`/:func:`custom_vjp` return in plain Python: the function
    (calling it calls it) with JAX's rule-registering methods. ``gradc build`` reads the
    decorator and the rule from the source (docs/ad.md "Custom rules").

    Attributes:
        kind: ``"jvp"`` or ``"vjp"``.
        fn: the function.
        rules: the registered rule functions (``(jvp,)`` or ``(fwd, bwd)``).
    """

    __slots__ = ("fn", "kind", "rules")

    def __init__(self, kind: str, fn: Any) -> None:
        self.kind = kind
        self.fn = fn
        self.rules: tuple[Any, ...] = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def defjvp(self, rule: _F) -> _F:
        """Register ``rule(primals, tangents) -> (value, tangent)`` (a decorator).

        Raises:
            TypeError: the function was declared ``custom_vjp``.
        """
        if self.kind != "jvp":
            raise TypeError("defjvp goes with gradc.custom_jvp")
        self.rules = (rule,)
        return rule

    def defvjp(self, fwd: Any, bwd: Any) -> None:
        """Register ``fwd(*args) -> (value, residuals)`` and
        ``bwd(residuals, cotangent) -> (one cotangent per parameter,)``.

        Raises:
            TypeError: the function was declared ``custom_jvp``.
        """
        if self.kind != "vjp":
            raise TypeError("defvjp goes with gradc.custom_vjp")
        self.rules = (fwd, bwd)


def checkpoint(fn: _F) -> _F:
    """Checkpoint helper ``fn`` (JAX's ``jax.checkpoint``): reverse-mode derivatives that
    reach it tape its arguments only and recompute its forward pass in the reverse sweep
    (less memory, the forward pass run twice); forward mode ignores it. In plain Python
    ``fn`` itself (docs/ad.md "Checkpointing")."""
    return fn


def custom_jvp(fn: Any) -> CustomRuleFunction:
    """Give helper ``fn`` (float scalar parameters, a float result) a custom JVP rule,
    registered with ``@fn.defjvp`` (JAX's meaning): forward-mode derivatives through
    ``fn`` call the rule instead of differentiating its body."""
    return CustomRuleFunction("jvp", fn)


def custom_vjp(fn: Any) -> CustomRuleFunction:
    """Give helper ``fn`` (float scalar parameters, a float result) a custom VJP rule,
    registered with ``fn.defvjp(fwd, bwd)`` (JAX's meaning): reverse-mode derivatives
    through ``fn`` call ``fwd`` in the forward sweep (its residuals go on the tape) and
    ``bwd`` in the reverse sweep."""
    return CustomRuleFunction("vjp", fn)


class Activity:
    """An activity annotation of :func:`reverse`/:func:`forward` (a marker, no behaviour).

    Attributes:
        name: ``"Duplicated"``, ``"Active"`` or ``"Const"``.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"gradc.{self.name}"


#: The parameter has a caller-supplied shadow (gradient accumulated into it, or tangent).
Duplicated = Activity("Duplicated")
#: A float scalar whose adjoint the reverse-mode derivative returns.
Active = Activity("Active")
#: Not differentiated (the default for unannotated parameters).
Const = Activity("Const")


# ---------------------------------------------------------------------------- loading


if TYPE_CHECKING:

    @overload
    def load(
        path: str | Any, *, fastcall: bool | None = None, target: Literal["cpu"] = "cpu"
    ) -> Library: ...
    @overload
    def load(
        path: str | Any, *, fastcall: bool | None = None, target: Literal["cuda"]
    ) -> CudaLibrary: ...


def load(path: str | Any, *, fastcall: bool | None = None, target: str = "cpu") -> Any:
    """Load a built artifact directory (``build/NAME.gradc``) into this process.

    Returns a :class:`~gradc.artifacts.loader.cpu.Library` with one callable per export;
    with ``target="cuda"``, a :class:`~gradc.artifacts.loader.cuda.CudaLibrary` of the
    artifact's CUDA kernels (``gradc build --target cuda``) on this process's GPU.
    Imports the loader (and ``llvmlite.binding``) on first use only. Exports with a
    fast-call wrapper are called through it unless ``fastcall=False`` (default: the
    environment variable ``GRADC_FASTCALL``: on unless ``0``, ``false``, ``no``, ``off``);
    the others through ctypes.

    Raises:
        ArtifactError: the artifact is missing, corrupt, or of a newer format version;
            for CUDA also: no kernels built for CUDA, no driver or GPU, no variant fits.
        ValueError: ``target`` is neither ``"cpu"`` nor ``"cuda"``.
    """
    if target == "cuda":
        from gradc.artifacts.loader.cuda import load as _load_cuda

        return _load_cuda(path)
    if target != "cpu":
        raise ValueError(f"target must be 'cpu' or 'cuda', got {target!r}")
    from gradc.artifacts.loader.cpu import load as _load

    return _load(path, fastcall=fastcall)


def runtime_stats() -> dict[str, int]:
    """Counters of the gradc runtime in this process: ``{"live": n, "allocated": m}``.

    ``live`` is the number of blocks (arrays allocated by compiled code) allocated and not
    yet freed, read from the runtime's ``gradc_rt1_live``; ``allocated`` the number of
    blocks allocated since the runtime was linked (``gradc_rt1_allocated``: the difference
    across a call counts the arrays it allocated, temporaries included; -1 when the
    runtime object linked first predates the counter). docs/abi.md. Both are 0 until an
    artifact carrying the runtime has been loaded. Imports nothing (no compiler, and no
    loader when none has been used), so it is cheap to call in a loop or a leak test.
    """
    loader = sys.modules.get("gradc.artifacts.loader.cpu")
    if loader is None:
        return {"live": 0, "allocated": 0}
    stats: dict[str, int] = loader.runtime_stats()
    return stats
