"""One dispatch style for every consumer of the IR: a table from operation class to rule.

Every consumer that does something per operation (the verifier, the interpreter,
inference, codegen, the AD rules) keeps one :class:`OpTable` and registers a rule per
concrete operation class::

    RULES: OpTable[Rule] = OpTable("interpreter")

    @RULES.register(ops.Add, ops.Sub, ops.Mul)
    def _arith(machine: Machine, inst: Instruction, vals: list[object]) -> object: ...

    rule = RULES.lookup(inst)            # exact type: operations are final classes

Lookup is by the exact class (operations are ``@final``; there is no inheritance order
to get wrong). :meth:`OpTable.missing` lists the operations a consumer has no rule for,
so a test can check that each consumer covers every operation it must
(tests/ir/test_dispatch_coverage.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from gradc.compiler.ir.core import Instruction

R = TypeVar("R")


class MissingRule(LookupError):
    """A consumer has no rule for an operation.

    Attributes:
        table: the consumer's name (``"interpreter"``).
        opname: the operation's printed name (``"add"``).
    """

    def __init__(self, table: str, opname: str) -> None:
        super().__init__(f"{table}: no rule for operation {opname!r}")
        self.table = table
        self.opname = opname

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle whole (``Exception``'s own pickling passes only ``args`` to
        ``__init__``, which needs more): an error raised on a Dask worker reaches the
        client with every attribute."""
        return (type(self), (self.table, self.opname), self.__dict__)


class OpTable(Generic[R]):
    """Rules of one consumer, keyed by the exact operation class.

    Args:
        name: the consumer's name, used in error messages (``"codegen"``).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._rules: dict[type[Instruction], R] = {}

    def register(self, *classes: type[Instruction]) -> Callable[[R], R]:
        """Decorator: make the decorated object the rule for each of ``classes``.

        Raises:
            ValueError: a class already has a rule in this table, or no class was given.
        """
        if not classes:
            raise ValueError(f"{self.name}: register() needs at least one operation class")

        def decorate(rule: R) -> R:
            self.set(classes, rule)
            return rule

        return decorate

    def set(self, classes: Iterable[type[Instruction]], rule: R) -> None:
        """Register ``rule`` for each of ``classes`` (the non-decorator form).

        Raises:
            ValueError: a class already has a rule in this table.
        """
        for cls in classes:
            if cls in self._rules:
                raise ValueError(f"{self.name}: {cls.__name__} registered twice")
            self._rules[cls] = rule

    def lookup(self, inst: Instruction) -> R:
        """The rule for ``inst``'s exact class.

        Raises:
            MissingRule: the table has no rule for it.
        """
        try:
            return self._rules[type(inst)]
        except KeyError:
            raise MissingRule(self.name, type(inst).OPNAME or type(inst).__name__) from None

    def get(self, inst: Instruction) -> R | None:
        """The rule for ``inst``'s exact class, or None."""
        return self._rules.get(type(inst))

    def __contains__(self, cls: object) -> bool:
        return cls in self._rules

    def covered(self) -> frozenset[type[Instruction]]:
        """The operation classes that have a rule."""
        return frozenset(self._rules)

    def missing(self, classes: Iterable[type[Instruction]]) -> list[str]:
        """Printed names of those ``classes`` without a rule, sorted."""
        return sorted(cls.OPNAME for cls in classes if cls not in self._rules)
