"""Run the ``filecheck`` package (LLVM FileCheck's Python clone) on a pass's output.

Pass tests are text in, text out: an IR snippet, the pass, and ``CHECK:`` lines matched
against the printed result in order (``CHECK-NEXT:``, ``CHECK-NOT:`` work as in LLVM).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap


def filecheck(output: str, checks: str) -> None:
    """Assert that ``output`` satisfies the FileCheck directives in ``checks``.

    Raises:
        AssertionError: with filecheck's report and the output that failed.
    """
    with tempfile.NamedTemporaryFile("w", suffix=".checks", delete=False) as f:
        f.write(textwrap.dedent(checks))
        path = f.name
    proc = subprocess.run(
        [sys.executable, "-m", "filecheck", path],
        input=output,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(
            f"FileCheck failed:\n{proc.stdout}{proc.stderr}\n--- output:\n{output}"
        )
