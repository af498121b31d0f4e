"""The size-aware LLVM pipeline (gradc.compiler.codegen.size_policy, docs/compile_time.md).

A module over the size threshold is optimised with the -O1 pipeline at the default -O2;
that must change no computed number. The oracle for the capped build: the same module
built with the full -O2 pipeline (bit for bit, values and gradients) and CPython running
the module's source (the primal).
"""

from __future__ import annotations

import importlib.util
import math
import textwrap
from pathlib import Path

import pytest

from gradc.compiler.codegen import size_policy
from gradc.compiler.codegen.size_policy import (
    Pipeline,
    codegen_level,
    fast_instruction_selection,
    instruction_count,
    middle_end,
    needs_middle_end,
)
from gradc.compiler.options import CompilerOptions

SMALL = "define double @f(double %x) {\nentry:\n  %y = fadd double %x, 1.0\n  ret double %y\n}\n"


def test_instruction_count_counts_indented_lines() -> None:
    assert instruction_count(SMALL) == 2
    assert instruction_count("declare double @g(double)\n") == 0


@pytest.mark.parametrize(
    ("options", "large", "expected"),
    [
        (CompilerOptions(), False, Pipeline(2, True, True)),
        (CompilerOptions(), True, Pipeline(1, True, False)),
        (CompilerOptions(opt_level=3), True, Pipeline(3, True, True)),
        (CompilerOptions(fastmath=True), True, Pipeline(2, True, True)),
        (CompilerOptions(opt_level=1), True, Pipeline(1, False, False)),
        (CompilerOptions(opt_level=0), False, Pipeline(0, False, False)),
    ],
)
def test_middle_end(
    monkeypatch: pytest.MonkeyPatch, options: CompilerOptions, large: bool, expected: Pipeline
) -> None:
    monkeypatch.setattr(size_policy, "LARGE_INSTRUCTIONS", 2 if large else 3)
    assert middle_end(SMALL, options) == expected


@pytest.mark.parametrize(
    ("opt_level", "large", "expected"),
    [(2, False, False), (2, True, True), (3, True, False), (1, True, False), (0, False, True)],
)
def test_fast_instruction_selection(
    monkeypatch: pytest.MonkeyPatch, opt_level: int, large: bool, expected: bool
) -> None:
    monkeypatch.setattr(size_policy, "LARGE_INSTRUCTIONS", 2 if large else 3)
    assert fast_instruction_selection(SMALL, opt_level) is expected


def test_no_instruction_selector_is_left_over(monkeypatch: pytest.MonkeyPatch) -> None:
    """LLVM's -fast-isel option is process-wide: a small module emitted after a large one
    gets the same bytes as before it (emit_object sets the option for every module)."""
    from gradc.compiler.codegen.emit import emit_object

    before = emit_object(SMALL, CompilerOptions()).object_code
    with monkeypatch.context() as m:
        m.setattr(size_policy, "LARGE_INSTRUCTIONS", 0)
        emit_object(SMALL, CompilerOptions())
    assert emit_object(SMALL, CompilerOptions()).object_code == before


def test_fast_call_wrappers_skip_the_middle_end() -> None:
    """A wrapper module carries FINAL_FORM and is emitted as generated (no -O2 pipeline:
    it would add local_unnamed_addr and nonnull) with the fast instruction selector; every
    other module is optimised."""
    from types import SimpleNamespace

    from gradc.compiler.codegen.emit import emit_object
    from gradc.compiler.codegen.pywrapper import described_wrapper_module

    assert needs_middle_end(SMALL)
    params = [SimpleNamespace(type=t, writes=False) for t in ("f64", "f64[:]")]
    signature = SimpleNamespace(params=params, result="f64")
    module = described_wrapper_module(signature, "gradc_f_0123456789abcdef", b"abi")
    assert module is not None
    text = str(module)
    assert not needs_middle_end(text)
    emitted = emit_object(text, CompilerOptions())
    assert "tail call ptr @PyObject_Vectorcall" in emitted.llvm_text  # the slow path: a jmp
    assert "local_unnamed_addr" not in emitted.llvm_text and "nonnull" not in emitted.llvm_text
    assert fast_instruction_selection(emitted.llvm_text, 2)  # FastISel: straight-line calls
    assert codegen_level(emitted.llvm_text, 2) == 0  # and the -O0 code generator
    optimized = emit_object(text.replace(size_policy.FINAL_FORM, "other"), CompilerOptions())
    assert "local_unnamed_addr" in optimized.llvm_text


@pytest.mark.parametrize(
    ("opt_level", "final", "expected"),
    [(2, False, 2), (2, True, 0), (3, True, 0), (1, False, 1), (0, True, 0), (0, False, 0)],
)
def test_codegen_level(opt_level: int, final: bool, expected: int) -> None:
    """A module in final form (a fast-call wrapper) gets LLVM's -O0 code generator."""
    text = SMALL + (f"!{size_policy.FINAL_FORM} = !{{  }}\n" if final else "")
    assert codegen_level(text, opt_level) == expected


def test_no_register_allocator_is_left_over() -> None:
    """-optimize-regalloc is process-wide: a wrapper's -O0 code generator gets the optimising
    allocator at -O2, and neither an -O0 nor an -O2 module emitted after it changes."""
    from gradc.compiler.codegen.emit import emit_object

    wrapper = (
        textwrap.dedent("""\
        declare double @h(double)
        define double @g(double %x, double %y) {
        entry:
          %a = call double @h(double %x)
          %c = fcmp oeq double %a, -1.0
          br i1 %c, label %t, label %f
        t:
          %b = call double @h(double %y)
          %s = fadd double %a, %b
          ret double %s
        f:
          %r = fadd double %a, %y
          ret double %r
        }
        """)
        + f"!{size_policy.FINAL_FORM} = !{{  }}\n"
    )  # values live across blocks
    o0, o2 = CompilerOptions(opt_level=0), CompilerOptions()
    before = emit_object(SMALL, o0).object_code, emit_object(SMALL, o2).object_code
    fast = emit_object(wrapper, o2).object_code
    assert (emit_object(SMALL, o0).object_code, emit_object(SMALL, o2).object_code) == before
    assert emit_object(wrapper, o2).object_code == fast
    assert emit_object(wrapper, o0).object_code != fast  # -O0's own allocator: spills


SOURCE = """
import math

import gradc
from gradc import f64


@gradc.export
def f(x: f64, y: f64) -> f64:
    s = 0.0
    for k in range(1, 4):
        if x > k * 0.5:
            s = s + math.sin(x * k) * y
        else:
            s = s - y / (x * x + k)
    t = math.exp(-x * 0.25) * y + s * 0.5
    return s * 0.9 + math.tanh(t) * x


d_f = gradc.grad(f, wrt=("x", "y"))
"""


def _load(tmp_path: Path, name: str) -> object:
    import gradc
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module

    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(SOURCE).lstrip())
    write_artifact(tmp_path / f"{name}.gradc", build_module(path, CompilerOptions()))
    return gradc.load(tmp_path / f"{name}.gradc")


def test_capped_pipeline_computes_the_same_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = _load(tmp_path, "full")
    monkeypatch.setattr(size_policy, "LARGE_INSTRUCTIONS", 0)  # every module is "large"
    capped = _load(tmp_path, "capped")
    spec = importlib.util.spec_from_file_location("capped_plain", tmp_path / "capped.py")
    assert spec is not None and spec.loader is not None
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)  # GRADC_PLAIN_PYTHON=1: f is the Python function
    points = [(x / 7.0, y / 3.0) for x in range(-9, 14, 2) for y in (-2, 1, 5)]
    points += [(0.0, 0.0), (1e-300, 1e300), (1e300, -1e-300)]
    for x, y in points:
        expected = plain.f(x, y)
        for lib in (full, capped):
            got = lib.f(x, y)  # type: ignore[attr-defined]
            assert got == expected or (math.isnan(got) and math.isnan(expected)), (x, y)
        g_full, g_capped = full.d_f(x, y), capped.d_f(x, y)  # type: ignore[attr-defined]
        assert [v.hex() for v in g_full] == [v.hex() for v in g_capped], (x, y)
