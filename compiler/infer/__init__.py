"""Type inference and specialisation: untyped IR from the front end → typed IR.

Every function is inferred once per tuple of argument types (a *specialisation*, as in
Numba). Exports are specialised at their declared signature and keep their Python name;
other specialisations are named ``<name>.<type>.<type>`` from their argument types — by
content, never by a counter. A function of an imported user module is named by its
qualified name (``helpers.f.f64``, ``pkg.sub.g.i64``), so that functions of the same name
in two files never clash. Only functions the exports reach are lowered and inferred.

Inference is a monotone fixpoint over the type lattice of
:func:`gradc.compiler.ir.types.join` (``UNKNOWN`` at the bottom): each instruction's type
is computed from its operands' types by the rules below, phis join their incoming types,
calls take their callee's current return type. Recursive specialisations start with an
``UNKNOWN`` return type and are re-inferred until no return type changes. Afterwards
:mod:`.materialize` makes every implicit conversion an explicit :class:`~ops.Cast`, so
lowering sees operands of exactly the types each operation requires.

Typing rules (Python's, restricted to static types; Numba's for small ints):

* ``+ - * // % **`` and unary ``-``/``abs``: the join of the operands, with any integer
  (``bool``, ``i32``) widened to ``i64``; ``/`` of integers gives ``f64``.
* ``min``/``max``/conditional expressions/phis: the join.
* comparisons: operands converted to their join; result ``bool``.
* conditions (``if``, ``while``, ``and``/``or`` tests, ``not``): truth value (``!= 0``).
* ``math`` functions take ``f64`` and return ``f64`` (``isnan``… return ``bool``).
* NumPy's functions on scalars (``np.sqrt``, ``np.minimum``…): NumPy's loop selection,
  from the join of the operands (``compiler/ir/numpy_math.py``).

Modules: :mod:`.specialize` (specialisations, the fixpoint, result types), :mod:`.rules`
(the transfer rule of each operation), :mod:`.materialize` (explicit casts, front-end
operations replaced by typed ones).
"""

from gradc.compiler.infer import (
    reductions,  # noqa: F401 (registers its rules)
    rules_batched,  # noqa: F401 (registrations)
    rules_linalg,  # noqa: F401 (registrations)
    rules_reorder,  # noqa: F401 (registrations)
    rules_solve,  # noqa: F401 (registrations)
)
from gradc.compiler.infer.specialize import SpecKey, infer_module, symbol_for

__all__ = ["SpecKey", "infer_module", "symbol_for"]
