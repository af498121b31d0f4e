"""Derivative kernels built for CUDA (``--target cuda --cuda-arch sm_80,sm_90``): every one
of tests/cuda/kernels_ad_corpus.py gets PTX and a cubin per arch (ptxas accepts them),
adds the adjoints of reads other threads share with ``atom.global.add.f64`` and those of
its own elements (indexed by ``cuda.grid``) with plain loads and stores, keeps its tape
in local memory (no device malloc), and two builds in different processes and
directories are byte-identical."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gradc.artifacts.store import read_manifest
from tests.cuda.conftest import toolchain_or_skip
from tests.cuda.test_kernel_ad import CORPUS
from tests.cuda.test_kernel_ad_ptx import f64_atomic_spaces

#: Kernels whose reverse-mode derivative must add atomically, and how many sites at least
#: (shared reads: gathered, neighbouring, broadcast elements; scalar adjoints).
ATOMIC = {
    "d_saxpy": 1, "d_a_saxpy": 1, "d_branches": 1, "d_poly_loop": 1, "d_gather": 1,
    # x[i] too: other threads add to d_x[i] through their x[i - 1] and x[i + 1]
    "d_stencil": 3,
    "d_scalars": 2, "d_scale2d": 1, "d_matvec": 2,
    # v[i] only: m and out are thread-indexed by cuda.grid(2)
    "d_row_scale": 1,
}  # fmt: skip

#: Derivative kernels every access of which is the thread's own element: no atomic add.
PRIVATE = {"d_x_saxpy", "d_math_mix", "d_in_out", "d_while_loop"}

#: Kernels calling cuda.atomic_add, and their atomic adds exactly: the kernel's own; the
#: tangent's beside it (forward); none more in reverse (each reads d_out[idx] and its
#: x[i], w[i], y[i] are the thread's: d_x, d_w, d_y take plain stores).
USER_ATOMIC = {
    f"{prefix}{name}": 2 if prefix == "t_" else 1
    for name in ("sum_squares", "histogram", "dot")
    for prefix in ("", "t_", "d_")
}


def _build(source: Path, out: Path, cwd: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "gradc.cli.main", "build", str(source), "-o", str(out),
         "--target", "cuda", "--cuda-arch", "sm_80,sm_90"],
        check=True, capture_output=True, cwd=cwd,
    )  # fmt: skip


@pytest.mark.slow  # 47 kernels to PTX and two cubins each, twice: about a minute
def test_derivative_kernels_for_cuda(tmp_path: Path) -> None:
    toolchain_or_skip()
    first, second = tmp_path / "a", tmp_path / "b" / "c"
    for d in (first, second):
        d.mkdir(parents=True)
        (d / CORPUS.name).write_bytes(CORPUS.read_bytes())
        _build(d / CORPUS.name, d / "k.gradc", d)
    cuda = read_manifest(first / "k.gradc").cuda
    assert cuda is not None
    names = {k.name for k in cuda.kernels}
    assert ATOMIC.keys() | PRIVATE <= names
    assert {n for n in names if n.startswith(("d_", "t_"))} == {
        n for n in names if n not in {"saxpy", "math_mix", "branches", "poly_loop", "gather",
                                      "stencil", "scalars", "scale2d", "row_scale", "matvec",
                                      "in_out", "while_loop", "sum_squares", "histogram",
                                      "dot"}
    }  # fmt: skip
    for k in cuda.kernels:
        assert [(v.kind, v.arch) for v in k.variants] == [
            ("ptx", "sm_80"), ("cubin", "sm_80"), ("cubin", "sm_90")
        ]  # fmt: skip
        ptx = (first / "k.gradc" / k.variants[0].file).read_text()
        spaces = f64_atomic_spaces(ptx)
        # the kernel's arrays are global memory: never a generic-address atomic
        assert all(s == ".global" for s in spaces), (k.name, spaces)
        adds = len(spaces)
        if k.name in USER_ATOMIC:
            assert adds == USER_ATOMIC[k.name], (k.name, adds)
        elif k.name in ATOMIC:
            assert adds >= ATOMIC[k.name], (k.name, adds)
        if k.name == "d_row_scale":
            assert adds == 1, adds  # d_v only
        elif k.name in PRIVATE or k.name.startswith("t_") or not k.name.startswith("d_"):
            assert adds == 0 or k.name in USER_ATOMIC, k.name
        assert "malloc" not in ptx and ".extern" not in ptx
        # scalar adjoints: a full warp sums by shuffles before one lane's atomic
        warp = "activemask.b32" in ptx and "shfl.sync.down.b32" in ptx
        assert warp == (k.name in ("d_saxpy", "d_a_saxpy", "d_branches", "d_scalars")), k.name
    files = {
        p.relative_to(first / "k.gradc"): p.read_bytes()
        for p in (first / "k.gradc").rglob("*")
        if p.is_file()
    }
    again = {
        p.relative_to(second / "k.gradc"): p.read_bytes()
        for p in (second / "k.gradc").rglob("*")
        if p.is_file()
    }
    assert {k: v for k, v in files.items() if not k.name.startswith(".")} == {
        k: v for k, v in again.items() if not k.name.startswith(".")
    }
    check_loader(first / "k.gradc")


def check_loader(art: Path) -> None:
    """The loader packs each derivative kernel's arguments as its cubins' ``.nv.info``
    says, and launches ``d_saxpy`` (shadows after their arrays, ``d_a`` a 1-element
    array) on a fake driver."""
    import struct

    from gradc.artifacts.abi.cubin import check_param_layout
    from gradc.artifacts.loader import cuda as cuda_loader
    from tests.cuda.fake_driver import DeviceArray, FakeDriver
    from tests.cuda.test_loader import H200

    cuda = read_manifest(art).cuda
    assert cuda is not None
    for k in cuda.kernels:
        for v in k.variants[1:]:
            check_param_layout((art / v.file).read_bytes(), k.symbol, k.params)
    assert dict(cuda.kernel("d_saxpy").params) == {
        "a": "f64", "d_a": "f64[::1]", "x": "f64[:]", "d_x": "f64[:]", "y": "f64[:]",
        "d_y": "f64[:]", "out": "f64[:]", "d_out": "f64[:]",
    }  # fmt: skip
    driver = FakeDriver(H200)
    lib = cuda_loader.load(art, driver=driver)
    arrays = [
        DeviceArray((n,), address=0x1000 * (k + 1)) for k, n in enumerate([1, 9, 9, 9, 9, 9, 9])
    ]
    lib.d_saxpy[2, 8](2.0, *arrays)
    (launch,) = driver.launches
    assert launch.raw[:8] == struct.pack("<d", 2.0) and len(launch.sizes) == 1 + 7 * 3
