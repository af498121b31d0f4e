"""A derivative call that raises releases the array references on its tape.

Arrays allocated in a loop of a differentiated function are pushed on the tape once per
iteration (the shadow of a local array, the primal array a helper's reverse sweep needs,
a helper's result). When the forward sweep raises at iteration k, the error exit frees
the tape, and ``gradc_rt2_tape_free`` releases the k sets of references still on it
(compiler/codegen/tape.py "Array references"; docs/abi.md "Runtime functions").

Checked in a fresh process, for grad, value_and_grad, vjp and reverse, with the raise at
the top level and inside nested helpers: the runtime's live-block count
(``gradc.runtime_stats()``) is back at its baseline after 10^4 raising calls of each, and
RSS does not grow. Oracles: CPython running the same source raises the same exception
type; the derivatives of non-raising calls match central finite differences of the
compiled primal (so recording references does not disturb the normal reverse sweep).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gradc.artifacts.store import write_artifact
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

SOURCE = textwrap.dedent(
    """\
    import math

    import numpy as np

    import gradc
    from gradc import f64, i64


    def _fill(t, v):
        for j in range(len(t)):
            t[j] = v * (j + 1.0)
        t[0] = math.log(v) * v          # ValueError inside a helper when v <= 0


    def _dot(t, u):
        s = 0.0
        for j in range(len(t)):
            s += t[j] * u[j]
        return s


    def _make(v, n):
        out = np.empty(n)
        for j in range(n):
            out[j] = math.sqrt(v) * (j + 1.0)   # raises after allocating, when v < 0
        return out


    @gradc.export
    def chain(x: f64[:], idx: i64[:]) -> f64:
        s = 0.0
        for i in range(len(x)):
            t = np.zeros(16)
            u = np.empty(16)
            _fill(t, x[i])
            for j in range(16):
                u[j] = math.sin(t[j]) * x[idx[i]]   # IndexError at a bad idx[i]
            s += _dot(t, u)
        return s


    @gradc.export
    def made(x: f64[:]) -> f64:
        s = 0.0
        for i in range(len(x)):
            a = _make(x[i], 16)
            s += a[0] * a[1] + _dot(a, a) * math.cos(x[i])
        return s


    d_chain = gradc.grad(chain, wrt="x")
    vg_chain = gradc.value_and_grad(chain, wrt="x")
    v_chain = gradc.vjp(chain, wrt="x")
    r_chain = gradc.reverse(chain, x=gradc.Duplicated)
    d_made = gradc.grad(made, wrt="x")
    vg_made = gradc.value_and_grad(made, wrt="x")
    v_made = gradc.vjp(made, wrt="x")
    r_made = gradc.reverse(made, x=gradc.Duplicated)
    """
)

SCRIPT = textwrap.dedent(
    """\
    import importlib.util, json, resource, sys
    import numpy as np
    import gradc

    lib = gradc.load(sys.argv[1])
    spec = importlib.util.spec_from_file_location("m_oracle", sys.argv[2])
    py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(py)                 # CPython running the same source
    calls = int(sys.argv[3])

    n = 20
    x = np.linspace(0.5, 1.5, n)
    idx = (np.arange(n) * 7) % n
    ct = 0.75

    def fd(f, x, *rest, h=1e-6):
        g = np.empty_like(x)
        for i in range(len(x)):
            p, m = x.copy(), x.copy()
            p[i] += h
            m[i] -= h
            g[i] = (f(p, *rest) - f(m, *rest)) / (2 * h)
        return g

    # the normal path: derivatives against finite differences of the compiled primal
    for name, rest in (("chain", (idx,)), ("made", ())):
        prim = getattr(lib, name)
        want = fd(prim, x, *rest)
        scale = max(1.0, float(np.max(np.abs(want))))
        value, grad = getattr(lib, "vg_" + name)(x, *rest)
        shadow = np.ones(n)
        r_value, *_ = getattr(lib, "r_" + name)(x, shadow, *rest)
        for got in (getattr(lib, "d_" + name)(x, *rest), grad,
                    getattr(lib, "v_" + name)(x, *rest, ct) / ct, shadow - 1.0):
            assert np.max(np.abs(got - want)) <= 1e-5 * scale, (name, got, want)
        assert np.allclose([value, r_value], prim(x, *rest), rtol=1e-12, atol=0)

    neg = x.copy()
    neg[7] = -1.0                               # raises at iteration 7
    bad = idx.copy()
    bad[9] = 10 * n                             # IndexError at iteration 9
    cases = [
        ("d_chain", "chain", (neg, idx), (neg, idx)),
        ("d_chain", "chain", (x, bad), (x, bad)),
        ("vg_chain", "chain", (neg, idx), (neg, idx)),
        ("v_chain", "chain", (x, bad, ct), (x, bad)),
        ("r_chain", "chain", (neg, np.zeros(n), idx), (neg, idx)),
        ("d_made", "made", (neg,), (neg,)),
        ("vg_made", "made", (neg,), (neg,)),
        ("v_made", "made", (neg, ct), (neg,)),
        ("r_made", "made", (neg, np.zeros(n)), (neg,)),
    ]
    expected = []
    for export, primal, args, primal_args in cases:
        try:
            getattr(py, primal)(*primal_args)
        except Exception as exc:
            expected.append(type(exc))
        else:
            raise AssertionError(f"CPython's {primal}{primal_args} does not raise")

    def run(count):
        for (export, _, args, _), exc in zip(cases, expected):
            f = getattr(lib, export)
            for _ in range(count):
                try:
                    f(*args)
                except exc:
                    pass
                else:
                    raise AssertionError(f"{export} did not raise {exc.__name__}")

    run(20)                                     # warm: cached tape, first growths
    base = gradc.runtime_stats()["live"]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    growth = {}
    for k, ((export, _, args, _), exc) in enumerate(zip(cases, expected)):
        f = getattr(lib, export)
        before = gradc.runtime_stats()["live"]
        for _ in range(calls):
            try:
                f(*args)
            except exc:
                pass
        growth[f"{k}:{export}/{exc.__name__}"] = gradc.runtime_stats()["live"] - before
    run(calls // 10)
    print(json.dumps({
        "growth": growth,
        "live": gradc.runtime_stats()["live"] - base,
        "rss_mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) / 1024,
    }))
    """
)


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("tape_refs")
    source = tmp / "m.py"
    source.write_text(SOURCE)
    write_artifact(tmp / "m.gradc", build_module(source, CompilerOptions()))
    return tmp / "m.gradc", source


def _run(artifact: tuple[Path, Path], calls: int) -> dict[str, object]:
    path, source = artifact
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(path), str(source), str(calls)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_raising_derivative_calls_release_tape_references(artifact: tuple[Path, Path]) -> None:
    result = _run(artifact, 10_000)
    growth = result["growth"]
    assert isinstance(growth, dict)
    assert all(v == 0 for v in growth.values()), f"blocks leaked per case: {growth}"
    assert result["live"] == 0
    rss = result["rss_mib"]
    assert isinstance(rss, float) and rss < 24, f"RSS grew by {rss:.1f} MiB"


def test_artifact_of_the_previous_runtime_abi_is_refused(
    artifact: tuple[Path, Path], tmp_path: Path
) -> None:
    """An ``rt1`` artifact's objects call ``gradc_rt1_tape_*``, whose header has no
    reference stack: the loader refuses it by version, naming both ABIs, before linking."""
    import dataclasses
    import shutil

    from gradc.artifacts.abi import RUNTIME_ABI
    from gradc.artifacts.errors import ArtifactError
    from gradc.artifacts.loader.cpu import load
    from gradc.artifacts.manifest import MANIFEST_NAME
    from gradc.artifacts.store import read_manifest

    assert RUNTIME_ABI == "rt2"
    old = tmp_path / "old.gradc"
    shutil.copytree(artifact[0], old)
    m = read_manifest(old)
    assert m.runtime is not None and m.runtime.abi == RUNTIME_ABI
    m = dataclasses.replace(m, runtime=dataclasses.replace(m.runtime, abi="rt1"))
    (old / MANIFEST_NAME).write_bytes(m.encode())
    with pytest.raises(ArtifactError, match=r"runtime ABI 'rt1'.*'rt2'.*rebuild"):
        load(old)


def test_runtime_mode_rebuilds_an_artifact_of_the_previous_runtime_abi(
    artifact: tuple[Path, Path],
) -> None:
    import dataclasses

    from gradc.artifacts.store import read_manifest
    from gradc.runtime_mode import is_fresh

    path, source = artifact
    m = read_manifest(path)
    assert m.runtime is not None
    assert is_fresh(m, source, check_options=False)
    old = dataclasses.replace(m, runtime=dataclasses.replace(m.runtime, abi="rt1"))
    assert not is_fresh(old, source, check_options=False)
