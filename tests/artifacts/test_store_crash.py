"""A writer killed mid-write leaves the previous artifact or the new one, never a mix
(``gradc.artifacts.durable``'s policy: blobs written, fsync'ed, renamed, their folders
fsync'ed; then the manifest).

Each case runs the write in a child process that dies (``os._exit``, no cleanup, as a
SIGKILL) at its k-th ``os.replace`` or ``os.fsync``, for every k the write reaches; the
parent then reads the directory as a loader would.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gradc.artifacts.store import find_damage, read_manifest, write_artifact

from .fakes import PRODUCER, fake_build

ROOT = Path(__file__).resolve().parents[2]

_CHILD = """
import os, sys
from pathlib import Path
from gradc.artifacts.store import write_artifact
from tests.artifacts.fakes import PRODUCER, fake_build

out, call, k = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
real = getattr(os, call)
seen = [0]

def dying(*args):
    seen[0] += 1
    if seen[0] == k:
        os._exit(9)  # killed: no cleanup, no unwinding
    return real(*args)

setattr(os, call, dying)
write_artifact(out, fake_build("f", "g", "h"), producer=PRODUCER)
os._exit(0)
"""


def _write_killed_at(out: Path, call: str, k: int) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(out), call, str(k)], cwd=ROOT, capture_output=True
    )
    assert done.returncode in (0, 9), done.stderr.decode()
    return done.returncode


def _killed_writes(tmp_path: Path, call: str, steps: range) -> int:
    """Kill a write over an old artifact at each step of ``steps`` and check what is
    left; the number of steps at which the writer died."""
    old = fake_build("f")
    new = write_artifact(tmp_path / "new", fake_build("f", "g", "h"), producer=PRODUCER)
    killed = 0
    for k in steps:
        out = tmp_path / f"{call}{k}"
        before = write_artifact(out, old, producer=PRODUCER)
        if _write_killed_at(out, call, k) == 0:
            break  # the write needs fewer than k such calls
        killed += 1
        assert find_damage(out) == [], f"killed at {call} {k}"
        manifest = read_manifest(out)
        assert manifest.encode() in (before.encode(), new.encode()), f"killed at {call} {k}"
        # the next write completes it and removes the dead writer's temporaries
        write_artifact(out, fake_build("f", "g", "h"), producer=PRODUCER)
        assert read_manifest(out).encode() == new.encode()
        assert not [p for p in out.rglob(".tmp-*")]
    return killed


@pytest.mark.parametrize(("call", "step"), [("replace", 2), ("fsync", 3)])
def test_a_write_killed_mid_write_leaves_the_old_artifact(
    call: str, step: int, tmp_path: Path
) -> None:
    assert _killed_writes(tmp_path, call, range(step, step + 1)) == 1


@pytest.mark.slow
@pytest.mark.parametrize("call", ["replace", "fsync"])
def test_a_write_killed_at_any_step_leaves_the_old_artifact_or_the_new(
    call: str, tmp_path: Path
) -> None:
    # the blobs' steps and the manifest's are all reached
    assert _killed_writes(tmp_path, call, range(1, 40)) >= 3
