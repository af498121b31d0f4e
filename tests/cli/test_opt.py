"""``gradc opt``: passes on textual IR from the command line."""

from __future__ import annotations

from click.testing import CliRunner

from gradc.cli.opt import opt
from gradc.compiler.ir.parser import parse_module
from gradc.passes.registry import get

IR = """
func @f(%a: i64) -> i64 {
^entry:
  %0 = const 1 : i64
  %1 = add %a, %0 : i64
  ret %a
}
"""


def test_runs_the_named_passes_and_prints_the_result() -> None:
    result = CliRunner().invoke(opt, ["-", "-p", "dce"], input=IR)
    assert result.exit_code == 0, result.output
    assert "add" not in result.output
    assert "ret %a" in result.output


def test_unknown_pass_is_an_error_listing_the_known_ones() -> None:
    result = CliRunner().invoke(opt, ["-", "-p", "no-such-pass"], input=IR)
    assert result.exit_code == 1
    assert "unknown pass 'no-such-pass'" in result.output
    assert "phi-decay" in result.output


def test_invalid_ir_is_a_parse_error_with_a_line() -> None:
    result = CliRunner().invoke(opt, ["-"], input="func @f( {")
    assert result.exit_code == 1
    assert "line 1" in result.output


def test_inspect_relocations_lists_symbols_and_relocations(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    from gradc.cli.main import cli

    out = tmp_path / "scalars.gradc"
    example = Path(__file__).resolve().parents[2] / "examples" / "scalars.py"
    runner = CliRunner()
    built = runner.invoke(cli, ["build", str(example), "-o", str(out)])
    assert built.exit_code == 0, built.output
    result = runner.invoke(cli, ["inspect", str(out), "--relocations"])
    assert result.exit_code == 0, result.output
    assert "poly: objects/" in result.output
    assert "gradc_poly_" in result.output.split("defines:")[1]
    assert "-> sin (external)" in result.output
    assert "R_X86_64_PLT32" in result.output and "type " not in result.output  # as readelf
    assert "poly wrapper: objects/" in result.output  # the fast-call wrapper's object too


LIFETIMES_IR = """
func @g(%v: array[f64,1,A]) -> f64 {
^entry:
  %i = const 0 : i64
  %p = elemaddr %v, (%i) : ptr[f64]
  %x = load %p : f64
  ret %x
}
func @f(%n: i64, %k: i64, %v: array[f64,1,A]) -> array[f64,1,C] {
^entry:
  %z = const 0.0 : f64
  %a = newarray(%n), %z : array[f64,1,C]
  %b = newarray(%n), %z : array[f64,1,C]
  %tape = tapenew : tape
  %c = cmp lt %k, %n : i1
  condbr %c, ^loop, ^exit
^loop:
  %i = phi [^entry: %k], [^loop: %j] : i64
  %p = elemaddr %b, (%i) : ptr[f64]
  %x = load %p : f64
  %y = call @g(%v) : f64
  %s = add %x, %y : f64
  tapepush %tape, %s
  %q = elemaddr %a, (%i) : ptr[f64]
  store %q, %s
  %one = const 1 : i64
  %j = add %i, %one : i64
  %more = cmp lt %j, %n : i1
  condbr %more, ^loop, ^exit
^exit:
  tapefree %tape
  ret %a
}
"""


def test_lifetimes_output_re_parses_to_identical_ir() -> None:
    # everything lifetimes hands to codegen is in the text: the unwind sets too
    result = CliRunner().invoke(opt, ["-", "-p", "lifetimes", "--locs"], input=LIFETIMES_IR)
    assert result.exit_code == 0, result.output
    assert " unwind(%a, %b, %tape)" in result.output  # an index out of range releases them
    again = CliRunner().invoke(opt, ["-", "--locs"], input=result.output)
    assert again.exit_code == 0, again.output
    assert again.output == result.output
    module = parse_module(result.output)
    expected = get("lifetimes").run(parse_module(LIFETIMES_IR))
    for name, fn in expected.functions.items():
        parsed = list(module.functions[name].instructions())
        assert [[v.name for v in i.unwind] for i in parsed] == [
            [v.name for v in i.unwind] for i in fn.instructions()
        ]
