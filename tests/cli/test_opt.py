"""``gradc opt``: passes on textual IR from the command line."""

from __future__ import annotations

from click.testing import CliRunner

from gradc.cli.opt import opt

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
