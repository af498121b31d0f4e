"""``gradc build`` on a terminal shows that it is working (a spinner on stderr); piped, it
prints only its summary."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_build_on_a_terminal_says_it_is_building(tmp_path: Path) -> None:
    out = tmp_path / "scalars.gradc"
    command = [sys.executable, "-m", "gradc", "build", str(EXAMPLES / "scalars.py"), "-o", str(out)]
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
    assert b"gradc: building " in seen and b"wrote " in seen

    piped = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0 and "building" not in piped.stderr + piped.stdout
    assert piped.stdout.startswith(f"{out} is up to date")
