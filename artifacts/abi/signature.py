"""The structured signature of an export (docs/abi.md "Signature").

    int32_t entry(ARG_0, ..., ARG_{n-1}, RESULT *out, gradc_error *err);

A manifest entry stores its signature as type strings (``signature.params``,
``signature.result``) and, since format 1.4, also structured (``signature.types``,
:meth:`Signature.types_data`), so that tools read it without parsing. The loader builds
its calls from :class:`Signature` (parsed from the strings the object's ABI description
vouches for, by :func:`~gradc.artifacts.abi.types.parse_type`).

Imports only the standard library and gradc.artifacts' leaf modules.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradc.artifacts.abi.types import (
    AbiType,
    Record,
    TypeStringError,
    parse_type,
    type_from_data,
)

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Signature"]


class Signature(Record):
    """An export's parameters (name, type), result type and written array parameters.

    Array parameters are passed as pointers to descriptors, scalars by value; the result
    is written through ``out`` (a tuple as a struct, ``none`` as one ignored byte).
    """

    __slots__ = ("params", "result", "writes")
    _fields = __slots__
    params: tuple[tuple[str, AbiType], ...]
    result: AbiType
    writes: tuple[str, ...]

    def __init__(
        self,
        params: tuple[tuple[str, AbiType], ...],
        result: AbiType,
        writes: tuple[str, ...] = (),
    ) -> None:
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "writes", writes)

    @classmethod
    def parse(
        cls,
        params: Sequence[tuple[str, str]],
        result: str,
        writes: Sequence[str] = (),
        where: str = "a manifest signature",
    ) -> Signature:
        """The signature of type strings (``[("x", "f64"), ...]``, ``"f64"``).

        Raises:
            TypeStringError: a string is not an ABI type (the message names it and ``where``).
        """
        return cls(
            tuple((name, parse_type(t, where)) for name, t in params),
            parse_type(result, where),
            tuple(writes),
        )

    def types_data(self) -> dict[str, Any]:
        """The manifest's ``signature.types``: ``{"params": [T, ...], "result": T}`` with
        each ``T`` an :meth:`AbiType.to_data` map."""
        return {
            "params": [t.to_data() for _, t in self.params],
            "result": self.result.to_data(),
        }

    def check_types_data(self, data: object) -> None:
        """Check a manifest's ``signature.types`` against this signature.

        Raises:
            TypeStringError: ``data`` is malformed or names other types than the strings.
        """
        m: dict[str, Any] = data if isinstance(data, dict) else {}
        params, result = m.get("params"), m.get("result")
        if not isinstance(params, list) or len(params) != len(self.params):
            raise TypeStringError(f"signature.types.params must list {len(self.params)} types")
        found = [type_from_data(p) for p in params]
        for (name, t), f in zip(self.params, found, strict=True):
            if t != f:
                raise TypeStringError(f"signature.types says {name}: {f}, signature.params {t}")
        if type_from_data(result) != self.result:
            raise TypeStringError(
                f"signature.types says result {type_from_data(result)}, signature.result "
                f"{self.result}"
            )

    def __str__(self) -> str:
        args = ", ".join(f"{n}: {t}" for n, t in self.params)
        return f"({args}) -> {self.result}"
