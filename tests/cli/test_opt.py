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
