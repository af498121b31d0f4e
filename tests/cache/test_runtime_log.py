"""Runtime mode's log (``logging.getLogger("gradc")``, ``GRADC_LOG``) and its compile lock.

Fresh interpreters with ``GRADC_CACHE_DIR`` in the test's temporary directory; what each
process did is read from its log on stderr.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from gradc.runtime_mode import log_level

from .helpers import run_python

MODULE = """\
import gradc
from gradc import f64


@gradc.export
def poly(x: f64) -> f64:
    return 3.0 * x * x - x
"""

CHILD = "import rt, sys; assert rt.poly(2.0) == rt.poly.py_func(2.0); print('ok')"


@pytest.mark.parametrize(
    ("value", "level"),
    [
        ("", None),
        ("0", None),
        ("false", None),
        ("No", None),
        ("off", None),
        ("info", logging.INFO),
        ("1", logging.INFO),
        ("DEBUG", logging.DEBUG),
        ("warning", logging.WARNING),
    ],
)
def test_log_level_follows_the_flag_rule(value: str, level: int | None) -> None:
    assert log_level({"GRADC_LOG": value}) == level


def test_log_level_unknown_value_warns_and_logs_at_info() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert log_level({"GRADC_LOG": "verbose"}) == logging.INFO
    assert "GRADC_LOG='verbose'" in str(caught[0].message)


def test_log_says_miss_with_reason_compile_time_then_hit(tmp_path: Path) -> None:
    (tmp_path / "rt.py").write_text(MODULE)
    env = {"GRADC_CACHE_DIR": str(tmp_path / "cache"), "GRADC_LOG": "debug"}
    first = run_python(CHILD, cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    assert "gradc: miss rt.py: no artifact" in first.stderr
    assert "gradc: compiled rt.py in " in first.stderr
    assert "gradc: miss  poly: new entry" in first.stderr  # the --explain line, at debug

    second = run_python(CHILD, cwd=tmp_path, env=env)
    assert second.returncode == 0, second.stderr
    assert "gradc: hit rt.py" in second.stderr and "compiled" not in second.stderr

    (tmp_path / "rt.py").write_text(MODULE.replace("3.0 * x", "4.0 * x"))
    third = run_python(CHILD, cwd=tmp_path, env=env)
    assert third.returncode == 0, third.stderr
    assert "source rt.py changed" in third.stderr
    assert "gradc: compiled rt.py" in third.stderr

    quiet = run_python(CHILD, cwd=tmp_path, env={**env, "GRADC_LOG": "off"})
    assert quiet.returncode == 0 and "gradc:" not in quiet.stderr


def test_cold_processes_started_together_compile_once(tmp_path: Path) -> None:
    (tmp_path / "rt.py").write_text(MODULE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADC_")}
    env.update({"GRADC_CACHE_DIR": str(tmp_path / "cache"), "GRADC_LOG": "info"})
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    logs = "".join(err for _, err in outputs)
    assert logs.count("gradc: compiled rt.py") == 1, logs
    assert logs.count("gradc: hit") == 2, logs


def test_gradc_logger_records_without_gradc_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The records go to ``logging.getLogger("gradc")`` whatever ``GRADC_LOG`` says: an
    application's own logging configuration sees them."""
    from gradc.runtime_mode import ExportedFunction, _modules

    monkeypatch.setenv("GRADC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GRADC_LOG", raising=False)
    source = tmp_path / "logged.py"
    source.write_text(MODULE)
    namespace: dict[str, object] = {}
    exec(compile(MODULE.replace("@gradc.export\n", ""), str(source), "exec"), namespace)
    with caplog.at_level(logging.INFO, logger="gradc"):
        assert ExportedFunction(namespace["poly"])(2.0) == 10.0  # type: ignore[arg-type]
    messages = [r.getMessage() for r in caplog.records if r.name == "gradc"]
    assert messages[0].startswith("miss logged.py: no artifact")
    assert messages[1].startswith("compiled logged.py in ")
    _modules.pop(str(source), None)  # the next test's process state starts clean
