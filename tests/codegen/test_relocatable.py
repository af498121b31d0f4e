"""The relocatable check on emitted objects: allowed symbols pass, everything else fails."""

from __future__ import annotations

import llvmlite.ir as ll
import pytest

from gradc.compiler.codegen.emit import emit_object
from gradc.compiler.codegen.relocatable import RelocatableError, check_object, relocations
from gradc.compiler.options import CompilerOptions


def _object(callee: str, name: str = "gradc_f_0123456789abcdef") -> bytes:
    module = ll.Module("m")
    double = ll.DoubleType()
    fnty = ll.FunctionType(double, [double])
    ext = ll.Function(module, fnty, callee)
    fn = ll.Function(module, fnty, name)
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    b.ret(b.call(ext, [fn.args[0]]))
    return emit_object(module, CompilerOptions()).object_code


def test_libm_call_passes_and_is_listed() -> None:
    obj = _object("sin")
    check_object(obj, "f")
    assert any(r.symbol == "sin" and not r.defined for r in relocations(obj))


def test_call_to_a_function_outside_the_allow_list_fails() -> None:
    with pytest.raises(RelocatableError, match="'printf'"):
        check_object(_object("printf"), "f")


def test_symbol_named_by_an_address_fails() -> None:
    with pytest.raises(RelocatableError, match="address or a process-local counter"):
        check_object(_object("sin", name="f_0x7f3a2b1c"), "f")


def test_symbol_named_by_an_object_id_fails() -> None:
    with pytest.raises(RelocatableError, match="process-local counter"):
        check_object(_object("sin", name="f_140234567890123"), "f")


def test_integer_constant_turned_into_a_pointer_fails() -> None:
    text = "define i8* @f() { ret i8* inttoptr (i64 140234567890123 to i8*) }"
    with pytest.raises(RelocatableError, match="inttoptr"):
        check_object(_object("sin"), "f", llvm_text=text)


def test_not_an_object() -> None:
    with pytest.raises(RelocatableError, match="not an ELF object"):
        relocations(b"definitely not ELF")
