"""``@gradc.vectorize`` in plain Python, and :func:`broadcast_call`, which runs a
vectorised function's kernel (CPU build or CUDA) over broadcast arrays.

``gradc build`` compiles ``@gradc.vectorize("f64(f64, f64)") def huber(r, delta)`` to a
kernel ``huber(r, delta, out)`` over 4-d strided arrays (``compiler/frontend/vectorize.py``);
:func:`broadcast_call` gives it NumPy's broadcasting and chooses the launch::

    out = np.empty(np.broadcast_shapes(r.shape, delta.shape))
    gradc.broadcast_call(lib.huber, r, delta, out=out)          # CPU build, NumPy arrays
    gradc.broadcast_call(cuda_lib.huber, r_dev, d_dev, out=o)   # CUDA, CuPy/PyTorch arrays
    gradc.broadcast_call(huber, r, delta, out=out)              # plain Python
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["NDIM", "THREADS", "Vectorized", "broadcast_call"]

#: The rank of a vectorised kernel's arrays (``VECTORIZE_NDIM`` of the front end).
NDIM = 4

#: Threads per block of a :func:`broadcast_call` launch.
THREADS = 256

_DTYPES = {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int32", "bool": "bool"}


class Vectorized:
    """What ``@gradc.vectorize(signature)`` makes of a scalar function in plain Python:
    called with arrays (or scalars), it applies the function to every element of their
    NumPy broadcast, inputs converted to the signature's parameter dtypes, and returns a
    new array of its result dtype (0-d for scalar inputs). ``py_func`` is the function.

    Raises:
        ValueError: a signature that is not ``"result(param, ...)"`` of gradc scalar
            types, or a call with the wrong number of arguments.
    """

    __slots__ = ("__wrapped__", "params", "py_func", "result")

    def __init__(self, fn: Callable[..., Any], signature: str) -> None:
        text = signature.replace(" ", "")
        head, _, rest = text.partition("(")
        names = rest.removesuffix(")").split(",") if rest.removesuffix(")") else []
        if not rest.endswith(")") or any(n not in _DTYPES for n in [head, *names]):
            raise ValueError(f"invalid vectorize signature {signature!r}, e.g. 'f64(f64, f64)'")
        self.py_func = fn
        self.__wrapped__ = fn
        self.result = _DTYPES[head]
        self.params = tuple(_DTYPES[n] for n in names)

    def __repr__(self) -> str:
        return f"<gradc.vectorize {self.py_func.__qualname__}>"

    def __call__(self, *args: Any) -> Any:
        import numpy as np

        if len(args) != len(self.params):
            raise ValueError(f"{self.py_func.__name__}() takes {len(self.params)} arguments")
        arrays = np.broadcast_arrays(
            *(np.asarray(a, dtype=t) for a, t in zip(args, self.params, strict=True))
        )
        shape = arrays[0].shape
        out = np.empty(shape, dtype=self.result)
        for index in np.ndindex(shape):
            out[index] = self.py_func(*(a[index].item() for a in arrays))
        return out


def broadcast_call(fn: Any, *args: Any, out: Any) -> None:
    """``out[...] = fn(*args)`` elementwise with NumPy broadcasting, for a vectorised
    function's kernel: from the CPU build (NumPy arrays; scalars become 0-d arrays), from
    ``gradc.load(..., target="cuda")`` (arrays with ``__cuda_array_interface__``; the
    launch is asynchronous, as any), or a plain-Python :class:`Vectorized`. ``out`` has
    the broadcast shape; at most 4 axes. One thread per element, :data:`THREADS` per
    block.

    Raises:
        ValueError: shapes that do not broadcast to ``out``'s, more than 4 axes.
        TypeError: host arrays for a CUDA kernel (from its loader).
    """
    import numpy as np

    if isinstance(fn, Vectorized):
        out[...] = fn(*args)
        return
    cuda = hasattr(fn, "__getitem__")
    if cuda:
        shapes = [tuple(_interface(a)["shape"]) for a in (*args, out)]
    else:
        args = tuple(np.asarray(a) for a in args)
        shapes = [np.shape(a) for a in (*args, out)]
    shape = shapes[-1]
    if np.broadcast_shapes(*shapes) != shape:
        raise ValueError(
            f"operands with shapes {shapes[:-1]} do not broadcast to out's shape {shape}"
        )
    if len(shape) > NDIM:
        raise ValueError(f"a vectorised function takes arrays of at most {NDIM} axes")
    size = math.prod(shape)
    grid, block = max(1, -(-size // THREADS)), max(1, min(size, THREADS))
    if cuda:
        fn[grid, block](*(_CudaView(_interface(a), shape) for a in (*args, out)))
        return
    pad = (None,) * (NDIM - len(shape))
    views = [np.broadcast_to(a, shape)[pad] for a in args]
    fn(grid, 1, 1, block, 1, 1, *views, out[pad])


def _interface(a: Any) -> dict[str, Any]:
    interface = getattr(a, "__cuda_array_interface__", None)
    if not isinstance(interface, dict):
        raise TypeError(
            f"a CUDA kernel takes device arrays (__cuda_array_interface__), not {type(a).__name__}"
        )
    return interface


class _CudaView:
    """A device array seen with ``shape`` (broadcast: stride 0) and :data:`NDIM` axes."""

    def __init__(self, interface: dict[str, Any], shape: tuple[int, ...]) -> None:
        own = tuple(interface["shape"])
        size = int(interface["typestr"][2:])
        strides = interface.get("strides")
        if strides is None:  # C order
            strides, step = [0] * len(own), size
            for k in reversed(range(len(own))):
                strides[k], step = step, step * own[k]
        lead = len(shape) - len(own)
        full = [0] * lead + [
            0 if n == 1 and m != 1 else s
            for n, m, s in zip(own, shape[lead:], strides, strict=True)
        ]
        pad = NDIM - len(shape)
        self.__cuda_array_interface__ = dict(
            interface, shape=(1,) * pad + tuple(shape), strides=(0,) * pad + tuple(full)
        )
