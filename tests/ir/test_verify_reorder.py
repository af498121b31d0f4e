"""The verification rules of diag, triangle, roll, sort, linsolve, batchmatmul,
maskassign and indexassign (compiler/ir/ops/reorder.py, solve.py, batched.py, indexing.py): one invalid
function each, its message checked (valid forms: tests/ir/test_printer_parser.py's
ALL_OPS, which is verified)."""

from __future__ import annotations

import pytest

from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.verifier import VerificationError, verify_module

HEADER = (
    "func @f(%o: array[f64,2,C], %y: array[f64,1,C], %n: i64, %x: f64, "
    "%t: array[f64,3,C], %m: array[i1,1,C]) -> f64 {\n^entry:\n"
)

CASES = {
    "diag of 3-D": ("%r = diag %t, %n : array[f64,1,C]", "a 1-D or 2-D array is required"),
    "diag rank": ("%r = diag %y, %n : array[f64,1,C]", "expected array[f64,2,C]"),
    "triangle of 1-D": ("%r = triangle %y, %n : array[f64,1,C]", "2 or more dimensions"),
    "roll axis": ("%r = roll 2 %o, %n : array[f64,2,C]", "roll axis 2 is out of range"),
    "roll shift": ("%r = roll 0 %o, %x : array[f64,2,C]", "expected i64"),
    "sort axis": ("%r = sort sort 2 %o : array[f64,2,C]", "sort axis 2 is out of range"),
    "argsort dtype": ("%r = sort argsort 1 %o : array[f64,2,C]", "expected array[i64,2,C]"),
    "median rank": ("%r = sort median 0 %y : array[f64,1,C]", "expected f64"),
    "det with b": ("%r = linsolve det %o, (%y) : f64", "has 1 right-hand sides"),
    "solve rank": ("%r = linsolve solve %o, (%y) : array[f64,2,C]", "expected array[f64,1,C]"),
    "inv of 1-D": ("%r = linsolve inv %y, () : array[f64,1,C]", "2 or more axes is required"),
    "inv of 3-D": ("%r = linsolve inv %t, () : array[f64,2,C]", "expected array[f64,3,C]"),
    "det of 3-D": ("%r = linsolve det %t, () : f64", "expected array[f64,1,C]"),
    "batch of 2-D": ("%r = batchmatmul %o, %o : array[f64,2,C]", "2 axes or fewer"),
    "mask rank": ("maskassign %o, %m, %x", "expected bools of array[f64,2,C]"),
    "mask item": ("maskassign %y, %m, %n", "expected f64 values"),
    "index kind": ("indexassign %o, %y, %x", "integer indices are required"),
    "index item": ("indexassign %y, %m, %x", "integer indices are required"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_invalid_operation_is_refused(case: str) -> None:
    line, message = CASES[case]
    module = parse_module(HEADER + f"  {line}\n  ret %x\n}}\n")
    with pytest.raises(VerificationError, match=message.replace("[", r"\[").replace("]", r"\]")):
        verify_module(module)
