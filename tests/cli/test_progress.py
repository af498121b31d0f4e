"""``gradc build`` on a terminal shows a progress bar once a build has run for a second
(``gradc.cli.build_progress``); a quicker build, or one piped, prints only its summary."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gradc.cli.build_progress import DELAY, BuildProgress

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: A module whose cold -j 1 build takes several seconds: 24 exports with loops.
SLOW_SOURCE = "import math\nimport gradc\nfrom gradc import f64\n" + "".join(
    f"""
@gradc.export
def f{k}(x: f64[:], a: f64) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(a * x[i] + {k}.0) * math.exp(-x[i] * x[i]) / (1.0 + a * a)
    return s
"""
    for k in range(24)
)


def _on_a_terminal(command: list[str]) -> bytes:
    main, child = pty.openpty()
    proc = subprocess.Popen(command, stdin=child, stdout=child, stderr=child, close_fds=True)
    os.close(child)
    seen = b""
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        seen += data
    os.close(main)
    assert proc.wait(timeout=300) == 0, seen
    return seen


@pytest.mark.slow
def test_a_long_build_on_a_terminal_shows_its_progress(tmp_path: Path) -> None:
    module = tmp_path / "many.py"
    module.write_text(SLOW_SOURCE)
    out = tmp_path / "many.gradc"
    command = [sys.executable, "-m", "gradc", "build", str(module), "-o", str(out), "-j", "1"]
    seen = _on_a_terminal(command)
    assert b"gradc: building " in seen and b"emit " in seen and b"wrote " in seen

    piped = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0 and "building" not in piped.stderr + piped.stdout
    assert piped.stdout.startswith(f"{out} is up to date")


def test_a_quick_build_on_a_terminal_prints_only_its_summary(tmp_path: Path) -> None:
    out = tmp_path / "scalars.gradc"
    command = [sys.executable, "-m", "gradc", "build", str(EXAMPLES / "scalars.py"), "-o", str(out)]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    seen = _on_a_terminal(command)  # up to date: well under a second of build
    assert b"building" not in seen and b"is up to date" in seen


def test_the_bar_appears_after_the_delay_and_starts_no_thread() -> None:
    now = [0.0]
    threads = threading.active_count()
    with BuildProgress("m.py", enabled=True, clock=lambda: now[0]) as progress:
        progress("infer")
        assert not progress.shown
        now[0] = DELAY + 0.01
        progress("emit 3/32")
        assert progress.shown
        # -j N forks its workers only from a process without other threads
        assert threading.active_count() == threads
    assert not progress.shown


@pytest.mark.parametrize("enabled", [False, None])
def test_no_bar_off_a_terminal(enabled: bool | None) -> None:
    now = [0.0]
    with BuildProgress("m.py", enabled=enabled, clock=lambda: now[0]) as progress:
        now[0] = 10.0
        progress("emit 1/2")
        assert not progress.shown  # pytest's stderr is captured: not a terminal
