"""One rule for gradc's environment flags: unset or blank is the default, ``0``, ``false``,
``no``, ``off`` (any case) are off, anything else is on — in runtime mode, the loader and
the command line alike."""

from __future__ import annotations

from pathlib import Path

import pytest

import gradc
from gradc._flags import flag_value
from gradc.artifacts.loader.fastcall import FASTCALL_ENV, fastcall_enabled
from gradc.cli.distributed import build_all_command
from gradc.cli.main import build
from gradc.runtime_mode import ExportedFunction, env_flag

OFF = ["0", "false", "False", "NO", "off", " off "]
ON = ["1", "true", "yes", "on", "ON", "2"]


@pytest.mark.parametrize("value", OFF)
def test_off_words(value: str) -> None:
    assert flag_value(value) is False and flag_value(value, default=True) is False
    assert env_flag("GRADC_X", {"GRADC_X": value}) is False


@pytest.mark.parametrize("value", ON)
def test_on_words(value: str) -> None:
    assert flag_value(value) is True and flag_value(value, default=True) is True
    assert env_flag("GRADC_X", {"GRADC_X": value}) is True


@pytest.mark.parametrize("value", [None, "", "  "])
def test_unset_or_blank_is_the_default(value: str | None) -> None:
    assert flag_value(value) is False and flag_value(value, default=True) is True
    environ = {} if value is None else {"GRADC_X": value}
    assert env_flag("GRADC_X", environ) is False


def _f(x: float) -> float:
    return x


@pytest.mark.parametrize(("value", "plain"), [("false", False), ("Off", False), ("1", True)])
def test_plain_python_flag(monkeypatch: pytest.MonkeyPatch, value: str, plain: bool) -> None:
    monkeypatch.setenv("GRADC_PLAIN_PYTHON", value)
    exported = gradc.export(_f)
    assert (exported is _f) is plain
    assert isinstance(exported, ExportedFunction) is not plain


@pytest.mark.parametrize(
    ("value", "on"), [("false", False), ("OFF", False), ("", True), ("1", True)]
)
def test_fastcall_flag(monkeypatch: pytest.MonkeyPatch, value: str, on: bool) -> None:
    monkeypatch.setenv(FASTCALL_ENV, value)
    assert fastcall_enabled() is on


@pytest.mark.parametrize(("value", "on"), [("false", False), ("no", False), ("yes", True)])
def test_cli_remote_readonly_flag(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str, on: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("")
    monkeypatch.setenv("GRADC_REMOTE_CACHE_READONLY", value)
    params = build.make_context("build", ["m.py"]).params
    assert params["remote_cache_readonly"] is on
    params = build_all_command.make_context("build-all", ["m.py"]).params
    assert params["remote_cache_readonly"] is on
    assert build.make_context("build", ["m.py", "--remote-cache-readonly"]).params[
        "remote_cache_readonly"
    ]
