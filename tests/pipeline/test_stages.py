"""The driver's stages: their order, their timings, and internal errors that name the
stage, the user's function and its line (``gradc.compiler.pipeline``)."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner

import gradc.compiler.codegen.emit as emit
import gradc.passes.opt.dce as dce
from gradc.cli.main import cli
from gradc.compiler.diagnostics import CompileError, InternalCompilerError
from gradc.compiler.driver import STAGES, build_artifact, build_module
from gradc.compiler.ir.core import Function
from gradc.compiler.options import CompilerOptions
from gradc.compiler.pipeline import Stage, StageState, run_stages

SOURCE = """\
import gradc
from gradc import f64


def helper(x):
    y = x * 3.0  # the crash
    return y + 1.0


@gradc.export
def f(x: f64) -> f64:
    return helper(x) - 2.0
"""
CRASH_LINE = SOURCE.splitlines().index("    y = x * 3.0  # the crash") + 1


@pytest.fixture
def module(tmp_path: Path) -> Path:
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    return path


def _break_dce_on_the_crash_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real = dce.run_function

    def broken(fn: Function) -> Function:
        for inst in fn.instructions():
            if inst.loc.line == CRASH_LINE:
                raise KeyError("boom")
        return real(fn)

    monkeypatch.setattr(dce, "run_function", broken)


def test_the_stages_run_in_order() -> None:
    names = [s.name for s in STAGES]
    assert names == ["parse", "infer", "arrays", "ad", "passes", "keys", "lower", "emit", "cuda"]


def test_a_crash_in_a_pass_names_the_stage_the_user_function_and_its_line(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _break_dce_on_the_crash_line(monkeypatch)
    with pytest.raises(InternalCompilerError) as info:
        build_module(module, CompilerOptions())
    ice = info.value
    assert isinstance(ice.__cause__, KeyError)
    assert (ice.stage, ice.step, ice.function) == ("passes", "pass 'dce'", "helper")
    assert (ice.loc.file, ice.loc.line) == (str(module), CRASH_LINE)
    assert ice.render().splitlines() == [
        f"{module}:{CRASH_LINE}:{ice.loc.col + 1}: internal compiler error in stage 'passes' "
        "(pass 'dce') while compiling function 'helper': KeyError: 'boom'",
        "    y = x * 3.0  # the crash",
        "    " + " " * (ice.loc.col - 4) + "^",
    ]


def test_a_crash_while_emitting_names_the_export(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("LLVM said no")

    monkeypatch.setattr(emit, "emit_object", broken)
    with pytest.raises(InternalCompilerError) as info:
        build_module(module, CompilerOptions())
    ice = info.value
    assert (ice.stage, ice.step, ice.function) == ("emit", "export 'f'", "f")
    assert ice.loc.line == SOURCE.splitlines().index("def f(x: f64) -> f64:") + 1
    assert "RuntimeError: LLVM said no" in str(ice)


def test_gradc_build_prints_the_internal_error_and_writes_nothing(
    module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _break_dce_on_the_crash_line(monkeypatch)
    out = tmp_path / "m.gradc"
    r = CliRunner().invoke(cli, ["build", str(module), "-o", str(out)])
    assert r.exit_code == 70
    assert (
        f"gradc: {module}:{CRASH_LINE}:" in r.stderr
        and "internal compiler error in stage 'passes' (pass 'dce') while compiling "
        "function 'helper': KeyError: 'boom'"
        in r.stderr
    )
    assert "    y = x * 3.0  # the crash" in r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists()


def test_compile_errors_pass_through_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text(
        "import gradc\nfrom gradc import f64\n\n\n@gradc.export\ndef f(x: f64) -> f64:\n    return x @ x\n"
    )
    with pytest.raises(CompileError, match="'@'"):
        build_module(path, CompilerOptions())


def test_timings_have_a_row_per_stage_that_ran(module: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.gradc"
    cold = build_artifact(module, out, CompilerOptions())
    cpu_stages = [s.name for s in STAGES if s.name != "cuda"]  # cuda: only with --target cuda
    assert list(cold.output.timings) == cpu_stages
    assert list(cold.timings) == [*cpu_stages, "write"]
    assert all(t >= 0.0 for t in cold.timings.values())
    warm = build_artifact(module, out, CompilerOptions())  # everything reused
    assert list(warm.timings) == ["parse", "infer", "arrays", "ad", "passes", "keys", "write"]
    assert warm.previous is not None and warm.manifest == warm.previous


def test_gradc_build_timings_table_lists_the_stages(module: Path, tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["build", str(module), "-o", str(tmp_path / "o"), "--timings"])
    assert r.exit_code == 0, r.output
    rows = [line.split("│")[1].strip() for line in r.output.splitlines() if line.count("│") > 2]
    assert rows == [
        "parse", "infer", "arrays", "ad", "passes", "keys", "lower", "emit", "write",
        "other (imports, setup)", "total",
    ]  # fmt: skip


def test_the_runner_skips_stages_with_nothing_to_do_and_passes_reported_errors() -> None:
    ran: list[str] = []
    stages: list[Stage[StageState]] = [
        Stage("a", lambda s: ran.append("a")),
        Stage("skipped", lambda s: ran.append("skipped"), needed=lambda s: False),
        Stage("b", lambda s: ran.append("b")),
    ]
    state = StageState()
    run_stages(stages, state)
    assert ran == ["a", "b"] and list(state.timings) == ["a", "b"]

    def fail(state: StageState) -> None:
        state.step = "reading"
        raise FileNotFoundError("gone")

    with pytest.raises(FileNotFoundError):
        run_stages([Stage("read", fail, reports=(OSError,))], StageState())
    with pytest.raises(InternalCompilerError) as info:
        run_stages([Stage("read", fail)], StageState())
    assert str(info.value) == "internal compiler error in stage 'read' (reading): " + (
        "FileNotFoundError: gone"
    )
    assert "FileNotFoundError" in "".join(traceback.format_exception(info.value))


def test_the_crash_site_is_found_through_the_attributes_of_local_variables() -> None:
    from gradc.compiler.ir.parser import parse_module
    from gradc.compiler.pipeline import crash_site

    fn = parse_module("func @g(%x: f64) -> f64 {\n^entry:\n  ret %x\n}\n").functions["g"]

    class Spec:  # what inference holds per specialisation
        def __init__(self, function: Function) -> None:
            self.function = function

    def infer(spec: Spec) -> None:
        raise KeyError("x")

    with pytest.raises(KeyError) as info:
        infer(Spec(fn))
    assert crash_site(info.tb) == (fn, fn.loc)
    assert crash_site(None, focus=fn) == (fn, fn.loc)


def test_build_pauses_the_cyclic_gc_and_restores_it(tmp_path: Path) -> None:
    # compiler/gc_pause.py: the collector is off while the stages run, back on after a
    # build (also a failed one), and left off for a caller that had turned it off
    import gc

    import gradc.compiler.driver as driver

    seen: list[bool] = []
    stage = driver.Stage("probe", lambda state: seen.append(gc.isenabled()))
    path = tmp_path / "m.py"
    path.write_text("import gradc\n\n\n@gradc.export\ndef f(x: float) -> float:\n    return x\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(driver, "STAGES", (*driver.STAGES, stage))
        assert gc.isenabled()
        driver.build_module(path, CompilerOptions())
        assert seen == [False] and gc.isenabled()
        path.write_text("def")  # a syntax error in the parse stage
        with pytest.raises(CompileError):
            driver.build_module(path, CompilerOptions())
        assert gc.isenabled()
        gc.disable()
        try:
            path.write_text("import gradc\n")
            driver.build_module(path, CompilerOptions())
            assert not gc.isenabled()
        finally:
            gc.enable()
