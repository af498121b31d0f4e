"""Runtime mode for code without a file: ``python -c``, standard input (gradc.runtime_mode).

Each scenario runs in a fresh interpreter with ``GRADC_CACHE_DIR`` in the test's temporary
directory. Oracles: the plain Python function (``py_func``) for values, central finite
differences for gradients; whether a process compiled is read from the ``gradc`` log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradc.runtime_mode import inline_artifact_dir

from .helpers import run_python

#: A script defining an export and its gradient, calling both, checking against oracles.
SCRIPT = """\
import json
import gradc
from gradc import f64


@gradc.export
def cubic(x: f64, y: f64) -> f64:
    return x * x * x + 3.0 * x * y


d_cubic = gradc.grad(cubic, wrt="x")

x, y, h = 1.3, 0.7, 1e-6
fd = (cubic.py_func(x + h, y) - cubic.py_func(x - h, y)) / (2 * h)
print(json.dumps({
    "value": cubic(x, y), "oracle": cubic.py_func(x, y), "grad": d_cubic(x), "fd": fd,
    "artifact": str(cubic.artifact), "source": str(cubic.source),
}))
""".replace("d_cubic(x)", "d_cubic(x, y)")


def _env(cache: Path, **extra: str) -> dict[str, str]:
    return {"GRADC_CACHE_DIR": str(cache), "GRADC_LOG": "info", **extra}


def _check(stdout: str) -> dict[str, object]:
    out: dict[str, object] = json.loads(stdout.splitlines()[-1])
    assert out["value"] == out["oracle"]
    assert out["grad"] == pytest.approx(out["fd"], rel=1e-7)
    return out


def _run_stdin(
    script: Path, cwd: Path, env: dict[str, str], pipe: bool
) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GRADC_")}
    full.update(env)
    with script.open() as f:
        return subprocess.run(
            [sys.executable, "-"],
            stdin=f if not pipe else None,
            input=script.read_text() if pipe else None,
            cwd=cwd,
            env=full,
            capture_output=True,
            text=True,
            timeout=300,
        )


def test_python_dash_c_compiles_from_the_command_then_loads_by_content(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = run_python(SCRIPT, cwd=tmp_path, env=_env(cache))
    assert first.returncode == 0, first.stderr
    out = _check(first.stdout)
    expected = inline_artifact_dir(SCRIPT.encode(), cache)
    assert out["artifact"] == str(expected)
    assert out["source"] == "<string>"
    assert "gradc: compiled <string>" in first.stderr
    assert "gradc: miss <string>: no artifact" in first.stderr

    # Same text from another folder, with compiling forbidden: served from the cache.
    (tmp_path / "elsewhere").mkdir()
    second = run_python(SCRIPT, cwd=tmp_path / "elsewhere", env=_env(cache, GRADC_NO_COMPILE="1"))
    assert second.returncode == 0, second.stderr
    assert _check(second.stdout)["artifact"] == str(expected)
    assert "gradc: hit <string>" in second.stderr
    assert "compiled" not in second.stderr

    # Another text is another entry (keyed by content, not by the name "<string>").
    edited = SCRIPT.replace("3.0 * x * y", "2.0 * x * y")
    third = run_python(edited, cwd=tmp_path, env=_env(cache))
    assert third.returncode == 0, third.stderr
    assert _check(third.stdout)["artifact"] == str(inline_artifact_dir(edited.encode(), cache))
    assert "gradc: compiled <string>" in third.stderr


def test_stdin_from_a_file_compiles_and_a_pipe_says_what_to_do(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    proc = _run_stdin(script, tmp_path, _env(cache), pipe=False)
    assert proc.returncode == 0, proc.stderr
    out = _check(proc.stdout)
    assert out["source"] == "<stdin>"
    assert out["artifact"] == str(inline_artifact_dir(SCRIPT.encode(), cache))

    piped = _run_stdin(script, tmp_path, _env(tmp_path / "cache2"), pipe=True)
    assert piped.returncode == 1
    assert "SourceUnavailableError: gradc cannot find the source of cubic" in piped.stderr
    assert "Put it in a file" in piped.stderr


def test_compile_error_in_dash_c_names_string_and_line(tmp_path: Path) -> None:
    bad = SCRIPT.replace("return x * x * x + 3.0 * x * y", "return [x, y]").replace(
        "x, y, h = 1.3, 0.7, 1e-6", "x, y, h = 1.3, 0.7, 1e-6\ncubic(x, y)"
    )
    proc = run_python(bad, cwd=tmp_path, env=_env(tmp_path / "cache"))
    assert proc.returncode == 1
    line = bad.splitlines().index("    return [x, y]") + 1
    assert f"<string>:{line}:12: error:" in proc.stderr
    assert not list((tmp_path / "cache").glob("*/manifest.msgpack"))


def test_exec_of_another_string_is_not_taken_for_the_command(tmp_path: Path) -> None:
    """``exec`` code is also ``<string>``: the ``-c`` text does not define it, so gradc
    says it cannot find the source instead of compiling the wrong text."""
    code = (
        "import gradc\n"
        "exec('import gradc\\n@gradc.export\\ndef h(x: gradc.f64) -> gradc.f64:\\n"
        "    return x\\n', globals())\n"
        "h(1.0)\n"
    )
    proc = run_python(code, cwd=tmp_path, env=_env(tmp_path / "cache"))
    assert proc.returncode == 1
    assert "cannot find the source of h" in proc.stderr


def test_module_in_a_zip_file_compiles_from_its_loaders_source(tmp_path: Path) -> None:
    import zipfile

    module = SCRIPT.split("\nx, y, h")[0] + "\n"
    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as z:
        z.writestr("zmod.py", module)
    code = (
        "import json, zmod\n"
        "print(json.dumps({'value': zmod.cubic(1.5, 2.0), 'oracle': zmod.cubic.py_func(1.5, 2.0),"
        " 'grad': zmod.d_cubic(1.5, 2.0), 'fd': (zmod.cubic.py_func(1.5 + 1e-6, 2.0)"
        " - zmod.cubic.py_func(1.5 - 1e-6, 2.0)) / 2e-6}))\n"
    )
    proc = run_python(code, cwd=tmp_path, env={**_env(tmp_path / "cache"), "PYTHONPATH": "lib.zip"})
    assert proc.returncode == 0, proc.stderr
    _check(proc.stdout)
    assert f"compiled {tmp_path / 'lib.zip' / 'zmod.py'}" in proc.stderr


def _interactive(lines: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Type ``lines`` at ``python -i`` on a pseudo-terminal (readline on); its output."""
    import pty
    import select
    import time

    master, slave = pty.openpty()
    full = {k: v for k, v in os.environ.items() if not k.startswith("GRADC_")}
    full.update({"HOME": str(cwd), "TERM": "dumb", **env})  # HOME: its .python_history
    proc = subprocess.Popen(
        [sys.executable, "-q", "-i"], stdin=slave, stdout=slave, stderr=slave, env=full, cwd=cwd
    )
    os.close(slave)
    for line in [*lines, "exit()"]:
        os.write(master, (line + "\n").encode())
        time.sleep(0.1)
    out = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            out += data
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(master)
    return out.decode(errors="replace").replace("\r\n", "\n")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_interactive_prompt_compiles_from_the_readline_history(tmp_path: Path) -> None:
    lines = [
        "import json, gradc",
        "from gradc import f64",
        "@gradc.export",
        "def sq3(x: f64, y: f64) -> f64:",
        "    return x * x * x + 3.0 * x * y",
        "",
        "d_sq3 = gradc.grad(sq3, wrt='x')",
        "fd = (sq3.py_func(1.3 + 1e-6, 0.7) - sq3.py_func(1.3 - 1e-6, 0.7)) / 2e-6",
        "print(json.dumps({'value': sq3(1.3, 0.7), 'oracle': sq3.py_func(1.3, 0.7),"
        " 'grad': d_sq3(1.3, 0.7), 'fd': fd, 'source': str(sq3.source)}))",
    ]
    env = _env(tmp_path / "cache")
    first = _interactive(lines, tmp_path, env)
    out = _check("\n".join(x for x in first.splitlines() if x.startswith("{")))
    assert out["source"] == "<stdin>"
    assert "gradc: compiled <stdin>" in first, first
    second = _interactive(lines, tmp_path, env)  # history of both sessions: same text
    _check("\n".join(x for x in second.splitlines() if x.startswith("{")))
    assert "gradc: hit <stdin>" in second and "compiled" not in second, second
