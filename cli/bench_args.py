"""``gradc bench``'s arguments: parsing ``--shape``/``--args``, defaults from a signature,
and comparing results.

Arguments come from the signature (floats 0.5, ints ``dim // 2``, bools True, arrays of
``dim`` elements per axis) unless ``--shape``, ``--args`` or the module's
``__gradc_bench__`` give them; see :mod:`gradc.cli.bench`.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import click

from gradc.artifacts.abi import AbiType, Array, Scalar, Tuple, TypeStringError, parse_type
from gradc.artifacts.manifest import Entry, Manifest


def parse_shapes(values: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """``["alphas=25 means=25x10"]`` -> ``{"alphas": (25,), "means": (25, 10)}``.

    Each value holds one or more whitespace-separated ``NAME=N[xM...]`` items.

    Raises:
        click.BadParameter: an item is not of that form (the message shows the form).
    """
    out: dict[str, tuple[int, ...]] = {}
    for value in values:
        for item in value.split():
            name, sep, dims = item.partition("=")
            if not sep or not name.isidentifier() or not dims:
                raise click.BadParameter(
                    f"expected NAME=N or NAME=NxM (e.g. means=25x10), got {item!r}",
                    param_hint="--shape",
                )
            try:
                shape = tuple(int(d) for d in dims.lower().split("x"))
            except ValueError:
                raise click.BadParameter(
                    f"{item!r}: sizes are integers separated by 'x' (e.g. means=25x10)",
                    param_hint="--shape",
                ) from None
            if any(n < 0 for n in shape):
                raise click.BadParameter(f"{item!r}: negative size", param_hint="--shape")
            out[name] = shape
    return out


def parse_args_option(values: Sequence[str]) -> dict[str, Any]:
    """``["f=(1.0, 2)", "gamma=0.5"]`` -> ``{"f": (1.0, 2), "gamma": 0.5}``.

    Values are Python literals (``ast.literal_eval``: numbers, strings, tuples, lists,
    ...); no code runs.

    Raises:
        click.BadParameter: not ``NAME=LITERAL``, or the value is no literal.
    """
    out: dict[str, Any] = {}
    for item in values:
        name, sep, text = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise click.BadParameter(
                f"expected NAME=LITERAL (e.g. gamma=0.5 or f=(1.0, 2)), got {item!r}",
                param_hint="--args",
            )
        try:
            out[name.strip()] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise click.BadParameter(
                f"{item!r}: not a Python literal (a number, True/False, a quoted string, or a "
                "tuple or list of those); array shapes go in --shape NAME=AxB",
                param_hint="--args",
            ) from None
    return out


def _array_type(text: str) -> Array | None:
    """The array type ``text`` names (``"f64[:, ::1]"``); None for any other type."""
    try:
        t = parse_type(text)
    except TypeStringError:
        return None
    return t if isinstance(t, Array) else None


def _default(text: str, dim: int, shape: tuple[int, ...] | None = None) -> Any:
    text = text.strip()
    if text in ("f64", "f32"):
        return 0.5
    if text in ("i64", "i32"):
        return dim // 2
    if text == "bool":
        return True
    parsed = _array_type(text)
    if parsed is None:
        raise ValueError(f"no default argument for type {text}")
    import numpy as np

    if shape is None:
        shape = (dim,) * parsed.ndim
    elif len(shape) != parsed.ndim:
        raise ValueError(f"--shape gives {len(shape)} axes, the parameter is {text}")
    n = math.prod(shape)
    dtype = parsed.numpy_dtype
    if dtype == "bool":
        flat = np.arange(n) % 2 == 0
    elif dtype.startswith("float"):
        flat = 0.5 + (np.arange(n) % 1000) / 1000.0
    else:
        flat = np.arange(n) % max(dim, 1)
    a = flat.astype(dtype).reshape(shape)
    if parsed.layout == "F":
        a = np.asfortranarray(a)
    return a


def _coerce(value: Any, text: str) -> Any:
    """A literal given for a parameter of type ``text``: lists become arrays."""
    parsed = _array_type(text)
    if parsed is None or not isinstance(value, (list, tuple)):
        return value
    import numpy as np

    a = np.asarray(value, dtype=parsed.numpy_dtype)
    if a.ndim != parsed.ndim:
        raise ValueError(f"a literal with {a.ndim} axes for a parameter of type {text}")
    return np.asfortranarray(a) if parsed.layout == "F" else a


def arguments_for(
    entry: Entry, shapes: Mapping[str, tuple[int, ...]], values: Mapping[str, Any], dim: int
) -> tuple[Any, ...]:
    """The arguments of ``entry``: ``values[entry.name]`` (all of them), else per parameter
    ``values[param]`` or a default shaped by ``shapes`` (see the module docstring).

    Raises:
        ValueError: a literal does not fit its parameter, or no default exists.
    """
    params = entry.signature.params
    if entry.name in values:
        given = values[entry.name]
        given = given if isinstance(given, tuple) else (given,)
        if len(given) != len(params):
            raise ValueError(
                f"--args {entry.name}: {len(params)} values expected, got {len(given)}"
            )
        return tuple(_coerce(v, t) for v, (_, t) in zip(given, params))
    out = []
    for name, t in params:
        if name in values:
            out.append(_coerce(values[name], t))
            continue
        shape = shapes.get(name)
        if shape is None and name.startswith("d_"):
            shape = shapes.get(name[2:])
        out.append(_default(t, dim, shape))
    return tuple(out)


def default_args(entry: Entry, dim: int) -> tuple[Any, ...]:
    """Arguments for ``entry`` from its signature alone (see the module docstring)."""
    return arguments_for(entry, {}, {}, dim)


def copy_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``args`` with each array copied (a call that writes into one leaves ``args`` as is)."""
    return tuple(a.copy() if hasattr(a, "copy") and hasattr(a, "dtype") else a for a in args)


def is_scalar_signature(entry: Entry) -> bool:
    """True when every parameter and the result of ``entry`` are scalars or tuples of them."""

    def scalar(t: AbiType) -> bool:
        return isinstance(t, Scalar) or (isinstance(t, Tuple) and all(map(scalar, t.elements)))

    try:
        sig = entry.signature.abi
    except TypeStringError:
        return False
    return all(scalar(t) for _, t in sig.params) and scalar(sig.result)


def agree(a: Any, b: Any) -> bool:
    """Results equal (NaN equals NaN; floats within 1e-9 relative; arrays elementwise;
    array-likes such as JAX arrays are compared as numpy arrays)."""
    import numpy as np

    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(agree(x, y) for x, y in zip(a, b))
    a, b = (np.asarray(v) if hasattr(v, "__array__") else v for v in (a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(
                np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-9, atol=0, equal_nan=True)
            )
        except TypeError:
            return bool(np.array_equal(a, b))
    if isinstance(a, float) or isinstance(b, float):
        try:
            fa, fb = float(a), float(b)
        except (TypeError, ValueError):
            return False
        return (math.isnan(fa) and math.isnan(fb)) or math.isclose(fa, fb, rel_tol=1e-9)
    return bool(a == b)


def short_args(args: tuple[Any, ...]) -> str:
    """``args`` for a table cell: arrays as ``dtype[AxB]``, other values as reprs cut to 20
    characters."""
    parts = []
    for a in args:
        shape = getattr(a, "shape", None)
        if shape:  # an array with at least one axis
            parts.append(f"{a.dtype}[{'x'.join(map(str, shape))}]")
        else:
            text = repr(a)
            parts.append(text if len(text) <= 20 else text[:19] + "…")
    return ", ".join(parts)


def module_defaults(
    module: ModuleType | None,
) -> tuple[dict[str, tuple[int, ...]], dict[str, Any]]:
    """The shapes and values a module declares for ``gradc bench`` in a module-level
    ``__gradc_bench__ = {"shape": "alphas=25 means=25x10", "args": {"m": 0}}`` (both keys
    optional; the same forms as ``--shape`` and ``--args``, which override them).

    Raises:
        click.ClickException: the declaration is not of that form.
    """
    spec = getattr(module, "__gradc_bench__", None)
    if spec is None:
        return {}, {}
    where = f"{getattr(module, '__name__', 'module')}.__gradc_bench__"
    if not isinstance(spec, dict) or set(spec) - {"shape", "args"}:
        raise click.ClickException(f'{where}: expected {{"shape": "...", "args": {{...}}}}')
    shape = spec.get("shape", "")
    args = spec.get("args", {})
    if not isinstance(shape, str) or not isinstance(args, dict):
        raise click.ClickException(f"{where}: 'shape' is a string, 'args' a dict")
    try:
        return parse_shapes([shape]), dict(args)
    except click.BadParameter as exc:
        raise click.ClickException(f"{where}: {exc.message}") from None


def check_names(
    manifest: Manifest, shapes: Mapping[str, tuple[int, ...]], values: Mapping[str, Any]
) -> None:
    """Every ``--shape``/``--args`` name is an export or a parameter of one.

    Raises:
        click.BadParameter: an unknown name (the message lists the known ones).
    """
    params = {n for e in manifest.entries for n, _ in e.signature.params}
    exports = {e.name for e in manifest.entries}
    for option, names, known in (("--shape", shapes, params), ("--args", values, params | exports)):
        unknown = sorted(set(names) - known)
        if unknown:
            raise click.BadParameter(
                f"no parameter named {', '.join(unknown)}; known: {', '.join(sorted(known))}",
                param_hint=option,
            )
