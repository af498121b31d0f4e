"""gradc's exceptions survive pickling whole (Dask ships a worker's exception to the
client by pickle): the rendered diagnostic and every attribute are those of the original.

``Exception.__reduce__`` passes only ``args`` (the message) to ``__init__`` again, which
fails for an exception whose ``__init__`` takes more (``CompileError``'s ``loc``) and
drops what ``__init__`` does not set from it."""

from __future__ import annotations

import pickle

import pytest

from gradc.compiler.diagnostics import CompileError, CudaBuildError, InternalCompilerError
from gradc.compiler.fanout import ToolchainMismatchError
from gradc.compiler.ir.dispatch import MissingRule
from gradc.compiler.ir.errors import PassError
from gradc.compiler.ir.lexer import IRParseError
from gradc.compiler.ir.loc import Loc
from gradc.compiler.ir.verifier import VerificationError


def _compile_error() -> CompileError:
    err = CompileError(
        "a list literal is not supported in compiled code",
        Loc("pkg/m.py", 6, 11),
        "    return [x, 2.0 * x]\n",
        help="for an array use np.empty(n)",
        end_col=23,
    )
    err.notes.append("in helper(x: f64), called from f at pkg/m.py:11")
    other = CompileError("unsupported statement 'with'", Loc("pkg/m.py", 14, 4), "    with x:")
    other.notes.append("in g")
    err.others.append(other)
    return err


ERRORS = [
    _compile_error(),
    InternalCompilerError(
        "KeyError: 'x'",
        stage="passes",
        step="pass 'lifetimes'",
        function="f",
        loc=Loc("m.py", 6, 11),
        source_line="    return x * y",
    ),
    CudaBuildError("ptxas refused kernel saxpy: ..."),
    ToolchainMismatchError("llvm: worker '1.0', expected '22.1.0'"),
    PassError("cannot differentiate 'sort'", Loc("m.py", 3, 8)),
    IRParseError("expected a type", 4, 7, "  %x = const 1.0 :"),
    VerificationError("operand type mismatch", "f", "entry", "%3 = add %1, %2 : f64"),
    MissingRule("interpreter", "add"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_an_error_survives_pickling_whole(error: Exception) -> None:
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error)
    assert str(back) == str(error) and back.args == error.args
    assert vars(back).keys() == vars(error).keys()
    for name, value in vars(error).items():
        if name == "others":
            assert [e.render() for e in vars(back)[name]] == [e.render() for e in value]
        else:
            assert vars(back)[name] == value, name
    if isinstance(error, CompileError):
        assert back.render() == error.render()
        assert "help: for an array" in back.render() and "^^^^^^^^^^^^" in back.render()
