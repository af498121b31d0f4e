"""Run oracle checks in a worker subprocess, so a crash or a hang is an outcome, not the end.

:class:`Runner` keeps one worker (``python -m tests.fuzzing.runner``) that compiles and
checks many modules in one process (compiling through the Python API and loading each
artifact there is what keeps the fuzzer fast). Requests and reports travel as JSON lines.
When the worker dies the program it was checking is a ``crash`` (with the signal or exit
status); when it exceeds the timeout it is killed and the program is a ``timeout``. A
fresh worker is started for the next request, and every ``recycle`` programs anyway
(each check loads a library into the worker, and loaded libraries are never unloaded).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from tests.fuzzing.oracle import Finding, Report

ROOT = Path(__file__).resolve().parents[2]
TAG = "@@FUZZ@@"


class Runner:
    """A supervised worker process; ``check()`` returns a :class:`Report` for any input."""

    def __init__(self, *, opt_level: int = 2, timeout: float = 120.0, recycle: int = 150) -> None:
        self.opt_level = opt_level
        self.timeout = timeout
        self.recycle = recycle
        self.proc: subprocess.Popen[str] | None = None
        self.served = 0
        self.counter = 0

    def _start(self) -> subprocess.Popen[str]:
        env = dict(os.environ, GRADC_PLAIN_PYTHON="1", PYTHONFAULTHANDLER="1")
        return subprocess.Popen(
            [sys.executable, "-m", "tests.fuzzing.runner"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check(
        self,
        source: str,
        *,
        input_seed: int = 0,
        opt_level: int | None = None,
        kind: str = "scalar",
    ) -> Report:
        """Compile and check ``source`` in the worker (see ``oracle.check_source``; with
        ``kind="arrays"``, ``array_oracle.check_arrays``), at ``opt_level`` (default: the
        runner's)."""
        if self.proc is None or self.proc.poll() is not None or self.served >= self.recycle:
            self.close()
            self.proc = self._start()
            self.served = 0
        self.served += 1
        self.counter += 1
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        request = {
            "source": source,
            "name": f"fz{self.counter}",
            "opt_level": self.opt_level if opt_level is None else opt_level,
            "input_seed": input_seed,
            "kind": kind,
        }
        try:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = _read_tagged(proc.stdout, self.timeout)
        if line is None:
            if proc.poll() is None:
                self.close()
                return Report(
                    outcome="timeout",
                    findings=[Finding("timeout", "worker", f"no answer in {self.timeout:.0f} s")],
                )
            rc = proc.wait()
            self.proc = None
            what = f"signal {-rc}" if rc < 0 else f"exit status {rc}"
            return Report(
                outcome="crash",
                detail=what,
                findings=[Finding("crash", "worker", f"the worker died ({what})")],
            )
        return Report.from_json(json.loads(line))


def _read_tagged(stream: IO[str], timeout: float) -> str | None:
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([stream], [], [], left)
        if not ready:
            return None
        line = stream.readline()
        if not line:
            return None
        if line.startswith(TAG):
            return line[len(TAG) :]


def main() -> None:
    """The worker loop: one JSON request per stdin line, one tagged report per stdout line."""
    from tests.fuzzing.array_oracle import check_arrays
    from tests.fuzzing.oracle import check_source

    workdir = Path(tempfile.mkdtemp(prefix="gradc-fuzz-"))
    out = sys.stdout
    try:
        for line in sys.stdin:
            req: dict[str, Any] = json.loads(line)
            try:
                check = check_arrays if req.get("kind") == "arrays" else check_source
                report = check(
                    req["source"],
                    workdir,
                    name=req["name"],
                    opt_level=req["opt_level"],
                    input_seed=req["input_seed"],
                )
            except Exception as exc:
                report = Report(outcome="oracle_error", detail=f"{type(exc).__name__}: {exc}")
            out.write(TAG + json.dumps(report.to_json()) + "\n")
            out.flush()
            for p in workdir.iterdir():
                if p.is_dir():
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    p.unlink()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
