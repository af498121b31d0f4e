"""Functions passed as arguments (compiler/frontend/function_args.py): each (function,
argument types) pair is its own specialisation, named after the function (no counters),
whose calls of the parameter are direct calls; the cache key of an export follows the
function it passes.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from gradc.compiler.driver import build_module
from gradc.compiler.frontend.module_scan import scan_module
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.infer import infer_module
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Module
from gradc.compiler.options import CompilerOptions

MODULE = textwrap.dedent(
    """\
    import math

    import gradc
    from gradc import f64, i64


    def _twice(x):
        return 2.0 * x


    def _square(x):
        return x * x


    def _apply(f, x):
        return f(x)


    def _apply_on(g, x):
        return _apply(g, x)


    @gradc.export
    def uses_twice(x: f64) -> f64:
        return _apply_on(_twice, x) + _apply(math.sin, x)


    @gradc.export
    def uses_square(x: f64, n: i64) -> f64:
        return _apply(f=_square, x=x) + _apply(_square, n)
    """
)


def _infer(text: str) -> Module:
    return infer_module(scan_module(SourceFile.parse(text, "m.py"), "m"))


def _calls(m: Module, name: str) -> list[str]:
    return [i.callee for i in m.functions[name].instructions() if isinstance(i, ops.Call)]


def test_specialisations_are_named_by_function_and_argument_types() -> None:
    m = _infer(MODULE)
    assert _calls(m, "uses_twice") == ["_apply_on$g$_twice.f64", "_apply$f$math.sin.f64"]
    assert _calls(m, "_apply_on$g$_twice.f64") == ["_apply$f$_twice.f64"]
    assert _calls(m, "_apply$f$_twice.f64") == ["_twice.f64"]
    assert _calls(m, "uses_square") == ["_apply$f$_square.f64", "_apply$f$_square.i64"]
    # the function parameter is no IR parameter; math.sin is inlined as a math op
    assert [p.name for p in m.functions["_apply$f$math.sin.f64"].params] == ["x"]
    assert _calls(m, "_apply$f$math.sin.f64") == []


def test_symbols_are_the_same_in_every_build() -> None:
    assert sorted(_infer(MODULE).functions) == sorted(_infer(MODULE).functions)


def _keys(tmp_path: Path, text: str, folder: str) -> dict[str, str]:
    path = tmp_path / folder / "m.py"
    path.parent.mkdir()
    path.write_text(text)
    return {e.name: e.key for e in build_module(path, CompilerOptions()).entries}


def test_the_key_follows_the_function_passed(tmp_path: Path) -> None:
    before = _keys(tmp_path, MODULE, "a")
    body = _keys(tmp_path, MODULE.replace("return 2.0 * x", "return 3.0 * x"), "b")
    assert {n for n in before if before[n] != body[n]} == {"uses_twice"}
    swapped = _keys(tmp_path, MODULE.replace("_apply_on(_twice, x)", "_apply_on(_square, x)"), "c")
    assert {n for n in before if before[n] != swapped[n]} == {"uses_twice"}
