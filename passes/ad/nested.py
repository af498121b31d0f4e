"""Derivatives of derivatives: the function a nested declaration differentiates.

``hv = gradc.jvp(g, ...)`` with ``g = gradc.grad(f, ...)`` differentiates the IR of the
export ``g``. The derived functions are named after what they differentiate, by content:
:func:`content_named` makes an internal copy of ``g`` named ``d.<hash>`` (the first 16
hex digits of the SHA-256 of its printed IR, under a fixed name and source name), so its
derivatives are
``d.<hash>.jvp.0_1`` ..., the same for the same function whatever the declaration's
variable is called and whatever was declared before it (never a counter).
"""

from __future__ import annotations

from gradc._hashing import sha256
from gradc.compiler.ir.clone import clone_function
from gradc.compiler.ir.core import Function, Module
from gradc.compiler.ir.printer import print_function


def content_named(module: Module, name: str) -> Function:
    """An internal copy of ``module``'s function ``name``, named by its content
    (``d.<16 hex digits>``), added to ``module`` unless one is there already."""
    fn = module.functions[name]
    anonymous = clone_function(fn, "d").function
    anonymous.source_name = "d"  # the declaration's variable is no part of the content
    digest = sha256(print_function(anonymous).encode()).hexdigest()[:16]
    copy = module.functions.get(f"d.{digest}")
    if copy is None:
        copy = clone_function(fn, f"d.{digest}").function
        module.add(copy)
    return copy
