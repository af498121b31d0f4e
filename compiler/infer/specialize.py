"""Specialisation and the fixpoint of type inference (see the package docstring)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import field

from gradc._dataclass import dataclass
from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.annotations import TypeSyntaxError, type_from_annotation
from gradc.compiler.frontend.custom_rules import rule_parameter
from gradc.compiler.frontend.imports import FunctionRef
from gradc.compiler.frontend.lower import LoweredFunction, UnpackCheck, lower_function
from gradc.compiler.frontend.module_scan import ModuleInfo
from gradc.compiler.infer import views as _views  # noqa: F401 (registers its rules)
from gradc.compiler.infer.kernels import add_grid_loops
from gradc.compiler.infer.materialize import Materializer
from gradc.compiler.infer.rules import TRANSFER, has_unknown
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Function, Instruction, Module
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.types import (
    NONE,
    UNKNOWN,
    ArrayType,
    NoneType,
    ScalarType,
    TupleType,
    Type,
    UnknownType,
    join,
    python_name,
)

SpecKey = tuple[str, tuple[Type, ...]]


@dataclass
class Spec:
    """One specialisation of a source function: its typed IR, declared and inferred
    result types, and the specialisation each of its calls calls."""

    key: SpecKey
    lowered: LoweredFunction
    declared_result: Type | None
    return_type: Type = UNKNOWN
    calls: dict[ops.Call, Spec | DerivativeCallee] = field(default_factory=dict)

    @property
    def function(self) -> Function:
        return self.lowered.function


@dataclass
class DerivativeCallee:
    """A derivative export AD has made, called from compiled code (``df(x)`` in a Newton
    step): a fixed signature, arguments converted to it (:mod:`.materialize`)."""

    function: Function

    @property
    def return_type(self) -> Type:
        return self.function.return_type


def symbol_for(name: str, arg_types: tuple[Type, ...]) -> str:
    """The IR name of a non-exported specialisation: ``name.f64.i64`` (``name.void``)."""
    parts = [
        python_name(t).replace("[", "_").replace("]", "_").replace(",", "_") for t in arg_types
    ]
    return ".".join([name, *parts]) if parts else f"{name}.void"


def infer_module(
    info: ModuleInfo,
    exports: list[str] | None = None,
    derivatives: dict[str, Function] | None = None,
) -> Module:
    """Type every export of ``info`` (or those named in ``exports``) and everything it
    calls; ``derivatives``: the derivative exports AD has made, which calls of
    derivative declarations in compiled code call.

    Returns:
        a typed module holding the exports (``exported=True``, named by their Python
        names) and every specialisation they reach.

    Raises:
        CompileError: a type error, an unsupported construct, or a type that cannot be
            inferred, at the user's source line.
    """
    return Inference(info, exports, derivatives or {}).run()


class Inference:
    """The inference of one module: its specialisations and the fixpoint over them."""

    def __init__(
        self,
        info: ModuleInfo,
        exports: list[str] | None = None,
        derivatives: dict[str, Function] | None = None,
    ) -> None:
        self.info = info
        self.exports = [e for e in info.exports if exports is None or e.name in exports]
        self.derivatives = derivatives or {}
        self.src = info.source
        self.specs: dict[SpecKey, Spec] = {}
        self.symbols: dict[SpecKey, str] = {}
        #: callee name in ``call`` instructions -> its source function (any module)
        self.functions: dict[str, FunctionRef] = {}
        #: IR symbol -> the specialisation that owns it (names must not clash)
        self.owners: dict[str, SpecKey] = {}
        #: helper specialisation -> (the specialisation whose call first reached it, where)
        self.reached: dict[SpecKey, tuple[SpecKey, Loc]] = {}
        self.changed = False

    def run(self) -> Module:
        for export in self.exports:
            # one of several signatures: its own specialisation of the function, named
            # by the export (``f.f64``); a helper call with these types calls it
            key = (export.function, tuple(export.param_types))
            if key in self.symbols:
                continue
            self.symbols[key] = export.name
            self.functions[export.function] = FunctionRef(self.info, export.function)
            spec = self._specialize(key, export.result_type)
            spec.function.exported = True
        self.changed = True
        while self.changed:
            self.changed = False
            for spec in list(self.specs.values()):
                with self.within(spec.key):
                    self._infer(spec)
            self._custom_rule_specs()
        module = Module(self.info.name, source_file=self.src.path)
        for spec in reversed(self.specs.values()):  # callees before callers
            with self.within(spec.key):
                self._finish(spec)
        for spec in self.specs.values():
            with self.within(spec.key):
                Materializer(spec).run()
            module.add(spec.function)
        add_grid_loops(module, [e.name for e in self.info.exports if e.kernel])
        return module

    # -- specialisations ------------------------------------------------------------

    def _specialize(self, key: SpecKey, declared: Type | None) -> Spec:
        name, arg_types = key
        symbol = self.symbols.setdefault(key, symbol_for(name, arg_types))
        ref = self.functions[name]
        node = ref.node
        owner = self.owners.setdefault(symbol, key)
        if owner != key:
            raise self.error(
                f"two functions would have the same IR name '{symbol}' ('{owner[0]}' and "
                f"'{name}' with these argument types); rename one of them",
                ref.module.source.loc(node),
            )
        with self.within(key):
            lowered = lower_function(ref.module, node, symbol, list(arg_types), dict(ref.bound))
        self.functions.update(lowered.callees)
        if (
            declared is None
            and node.returns is not None
            and not (ref.module is self.info and name in {e.function for e in self.info.exports})
        ):
            declared = self._helper_annotation(node.returns)
        spec = Spec(key, lowered, declared)
        self.specs[key] = spec
        self.changed = True
        return spec

    def _custom_rule_specs(self) -> None:
        """Specialise the rules of the ``@gradc.custom_*`` helpers specialised so far
        (``compiler/frontend/custom_rules.py``): only derivative code calls them. A JVP
        rule takes ``(primals, tangents)`` tuples; ``fwd`` the helper's arguments;
        ``bwd`` ``(residuals, cotangent)`` once ``fwd``'s result type is known.

        Raises:
            CompileError: a custom helper specialised with a parameter that is not f64.
        """
        for (name, arg_types), spec in list(self.specs.items()):
            ref = self.functions[name]  # a function of the main module or of an import
            rule = ref.module.custom_rules.get(ref.name)
            if rule is None or ref.bound:
                continue
            if not all(rule_parameter(t) for t in arg_types):
                shown = ", ".join(python_name(t) for t in arg_types)
                raise self.error(
                    f"@gradc.custom_{rule.kind} function '{name}' is called with ({shown}): "
                    "its parameters must be floats or f64 arrays (C or any layout)",
                    spec.function.loc,
                )
            rules = [FunctionRef(ref.module, r) for r in rule.rules]
            if rule.kind == "jvp":
                self._rule_spec(rules[0], (TupleType(arg_types), TupleType(arg_types)))
                continue
            fwd = self._rule_spec(rules[0], arg_types)
            t = fwd.return_type
            if isinstance(t, TupleType) and len(t.elements) == 2:
                self._rule_spec(rules[1], (t.elements[1], t.elements[0]))

    def _rule_spec(self, ref: FunctionRef, arg_types: tuple[Type, ...]) -> Spec:
        name = ref.symbol
        self.functions.setdefault(name, ref)
        key = (name, arg_types)
        return self.specs[key] if key in self.specs else self._specialize(key, None)

    def _helper_annotation(self, node: ast.expr) -> Type | None:
        try:
            return type_from_annotation(node)
        except TypeSyntaxError:
            return None  # helpers' annotations are optional hints

    def callee(self, caller: Spec, call: ops.Call) -> Spec | DerivativeCallee | None:
        """The specialisation ``call`` in ``caller`` calls (made on first sight); None
        while an argument type is not known yet.

        Raises:
            CompileError: an argument of a type that cannot be passed.
        """
        arg_types = tuple(a.type for a in call.args)
        if any(has_unknown(t) for t in arg_types):
            return None
        for t in arg_types:
            if not isinstance(t, ScalarType | TupleType | ArrayType):
                raise self.error(f"cannot pass a value of type {python_name(t)}", call)
        if call.callee in self.derivatives:
            return self._derivative(caller, call, self.derivatives[call.callee])
        key = (call.callee, arg_types)
        spec = self.specs.get(key)
        if spec is None:
            self.reached[key] = (caller.key, call.loc)
            spec = self._specialize(key, None)
        caller.calls[call] = spec
        return spec

    def _derivative(self, caller: Spec, call: ops.Call, fn: Function) -> DerivativeCallee:
        """The derivative export ``fn`` as the callee of ``call``.

        Raises:
            CompileError: the number of arguments differs, or an argument's type is not
                the parameter's (an array of another dtype or rank, an array passed to a
                C- or F-ordered parameter in another layout, an int for a float).
        """
        if len(call.args) != len(fn.params):
            names = ", ".join(p.name or "?" for p in fn.params)
            raise self.error(
                f"'{fn.name}' takes {len(fn.params)} arguments ({names}), got {len(call.args)}",
                call,
            )
        for a, p in zip(call.args, fn.params, strict=True):
            t = a.type
            same = t == p.type or (
                isinstance(t, ArrayType)
                and isinstance(p.type, ArrayType)
                and p.type.layout == "A"
                and (t.dtype, t.ndim) == (p.type.dtype, p.type.ndim)
            )
            if not same:
                raise self.error(
                    f"argument '{p.name}' of '{fn.name}' must be {python_name(p.type)}, "
                    f"not {python_name(t)}",
                    call,
                )
        callee = caller.calls[call] = DerivativeCallee(fn)
        return callee

    # -- the fixpoint -------------------------------------------------------------------

    def _infer(self, spec: Spec) -> None:
        fn = spec.function
        local_change = True
        while local_change:
            local_change = False
            for inst in fn.instructions():
                new = self._transfer(spec, inst)
                if new is None or new == inst.type:
                    continue
                merged = join(inst.type, new)
                if merged is None:
                    raise self.unify_error(inst, inst.type, new)
                if merged != inst.type:
                    inst.type = merged
                    local_change = True
        returned = _returned_type(self, spec)
        if returned != spec.return_type:
            spec.return_type = returned
            self.changed = True

    def _transfer(self, spec: Spec, inst: Instruction) -> Type | None:
        return TRANSFER.lookup(inst)(self, spec, inst)

    # -- errors ---------------------------------------------------------------------------

    @contextmanager
    def within(self, key: SpecKey) -> Iterator[None]:
        """Errors raised while working on specialisation ``key`` get its call chain as
        notes (:meth:`call_chain`), unless a callee's error already has its own."""
        try:
            yield
        except CompileError as err:
            if not err.notes:
                err.notes.extend(self.call_chain(key))
            raise

    def call_chain(self, key: SpecKey) -> list[str]:
        """How an export reaches helper specialisation ``key``, innermost first:
        ``in inner(a: f64, i: i64), called from middle at m.py:10``; ``[]`` for an
        export."""
        notes: list[str] = []
        while key in self.reached:  # every chain ends at an export (not in ``reached``)
            caller, loc = self.reached[key]
            ref = self.functions[key[0]]
            bound = dict(ref.bound)
            params = [a.arg for a in ref.node.args.args if a.arg not in bound]
            typed = ", ".join(
                [f"{p}={c.shown}" for p, c in ref.bound]
                + [f"{p}: {python_name(t)}" for p, t in zip(params, key[1], strict=False)]
            )
            notes.append(
                f"in {ref.name}({typed}), called from {self.functions[caller[0]].name} "
                f"at {loc.file}:{loc.line}"
            )
            key = caller
        return notes

    def error(self, message: str, where: Instruction | Loc) -> CompileError:
        """An error at ``where``, with the source line of whichever file it lies in."""
        loc = where if isinstance(where, Loc) else where.loc
        return self.info.error(message, loc)

    def unify_error(self, inst: Instruction, a: Type, b: Type) -> CompileError:
        """The error for ``inst``, whose types ``a`` and ``b`` have no join."""
        what = f" for variable '{inst.name}'" if inst.name else ""
        return self.error(f"cannot unify types {python_name(a)} and {python_name(b)}{what}", inst)

    # -- after the fixpoint ---------------------------------------------------------------

    def _finish(self, spec: Spec) -> None:
        fn = spec.function
        for inst in fn.instructions():
            if isinstance(inst.type, UnknownType) and not inst.IS_TERMINATOR:
                if isinstance(inst, ops.Call):
                    raise self.error(
                        f"cannot infer the return type of '{inst.callee}': it never "
                        "returns a value (recursion without a base case?)",
                        inst,
                    )
                raise self.error("cannot infer the type of this expression", inst)
        for check in spec.lowered.unpacks:
            _check_unpack(self, check)
        for int_check in spec.lowered.int_checks:
            t = int_check.value.type
            if not (isinstance(t, ScalarType) and t.is_int):
                raise self.error(
                    f"{int_check.what} must be an integer, not {python_name(t)}", int_check.loc
                )
        result = spec.return_type
        if isinstance(result, UnknownType):
            result = NONE  # every path raises
        declared = spec.declared_result
        if declared is not None:
            never_returns = isinstance(spec.return_type, UnknownType)
            if isinstance(declared, NoneType):
                ok = isinstance(result, NoneType)
            else:
                ok = never_returns or _converts_to(result, declared)
            if not ok:
                culprit: Instruction | Loc = fn.loc
                for inst in fn.instructions():
                    if isinstance(inst, ops.Return):
                        t = inst.value.type if inst.value is not None else NONE
                        if t != declared and not _converts_to(t, declared):
                            culprit = inst
                            break
                raise self.error(
                    f"return type mismatch: '{fn.source_name}' is declared to return "
                    f"{python_name(declared)} but returns {python_name(result)}",
                    culprit,
                )
            result = _refine(result, declared)
        fn.return_type = result


def _returned_type(inf: Inference, spec: Spec) -> Type:
    result: Type = UNKNOWN
    for inst in spec.function.instructions():
        if not isinstance(inst, ops.Return):
            continue
        t = inst.value.type if inst.value is not None else NONE
        merged = join(result, t)
        if merged is None:
            if isinstance(result, NoneType) or isinstance(t, NoneType):
                raise inf.error(
                    f"function '{spec.function.source_name}' returns a value on some "
                    "paths and None on others",
                    inst,
                )
            raise inf.error(
                f"cannot unify return types {python_name(result)} and {python_name(t)}",
                inst,
            )
        result = merged
    return result


def _refine(actual: Type, declared: Type) -> Type:
    """The result type: ``declared``, but keeping an array's more precise layout."""
    if isinstance(actual, ArrayType) and isinstance(declared, ArrayType):
        return actual
    if isinstance(actual, TupleType) and isinstance(declared, TupleType):
        return TupleType(
            tuple(_refine(a, d) for a, d in zip(actual.elements, declared.elements, strict=True))
        )
    if isinstance(actual, UnknownType | NoneType):
        return declared
    return declared


def _converts_to(actual: Type, declared: Type) -> bool:
    """May a value of type ``actual`` be returned where ``declared`` is promised?"""
    if actual == declared:
        return True
    if isinstance(actual, ArrayType) and isinstance(declared, ArrayType):
        return (actual.dtype, actual.ndim) == (declared.dtype, declared.ndim) and (
            declared.layout in ("A", actual.layout)
        )
    if isinstance(actual, ScalarType) and isinstance(declared, ScalarType):
        return declared.is_float or (actual.is_int and not declared.is_bool)
    if isinstance(actual, TupleType) and isinstance(declared, TupleType):
        return len(actual.elements) == len(declared.elements) and all(
            _converts_to(a, d) for a, d in zip(actual.elements, declared.elements, strict=True)
        )
    return False


def _check_unpack(inf: Inference, check: UnpackCheck) -> None:
    t = check.value.type
    if not isinstance(t, TupleType):
        raise inf.error(f"cannot unpack a value of type {python_name(t)}", check.loc)
    if len(t.elements) != check.count:
        raise inf.error(
            f"cannot unpack a tuple of {len(t.elements)} elements into {check.count} names",
            check.loc,
        )
