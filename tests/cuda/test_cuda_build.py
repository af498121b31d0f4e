"""``gradc build --target cuda``: PTX for the lowest arch at its minimum ISA, a cubin per
arch from ptxas, each variant with its own full key, reproducible bytes, and build errors
(not crashes, not a bad binary) for what the GPU cannot run."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradc.artifacts.abi.cuda import kernel_param_format
from gradc.artifacts.abi.types import parse_type
from gradc.artifacts.store import read_manifest
from tests.cuda.conftest import ARCHS, CORPUS, toolchain_or_skip

KERNELS = [
    "saxpy", "math_mix", "scale_f32", "histogram", "total",
    "add2d", "indices3d", "row_sums", "grid_stride", "out_of_bounds", "block_reverse",
    "block_sum_shared", "shared_scratch", "barrier_tuple", "divergent_barrier", "huber",
    "scaled_sin", "clip_scale", "horner", "matvec", "stencil3", "transpose_tiled",
    "dot_blocks", "count_positive", "softplus", "relu_mix", "visit_order", "barrier_state",
]  # fmt: skip

#: The kernels with a barrier (``bar.sync 0`` in their PTX).
BARRIERS = {
    *("block_reverse", "block_sum_shared", "barrier_tuple", "divergent_barrier"),
    *("transpose_tiled", "dot_blocks", "barrier_state"),
}


def test_every_kernel_has_ptx_and_a_cubin_per_arch(cuda_artifact: Path) -> None:
    cuda = read_manifest(cuda_artifact).cuda
    assert cuda is not None and cuda.archs == ARCHS
    assert [k.name for k in cuda.kernels] == KERNELS
    keys = set()
    for k in cuda.kernels:
        kinds = [(v.kind, v.arch, v.isa) for v in k.variants]
        assert kinds == [
            ("ptx", "sm_80", "7.0"),
            ("cubin", "sm_80", "7.0"),
            ("cubin", "sm_90", "7.0"),
        ]
        for v in k.variants:
            data = (cuda_artifact / v.file).read_bytes()
            assert hashlib.sha256(data).hexdigest() == v.sha256
            c = v.key_components
            assert (c["cuda.kind"], c["cuda.arch"], c["cuda.isa"]) == (v.kind, v.arch, v.isa)
            assert re.fullmatch(r"[0-9a-f]{64}", str(c["cuda.libdevice"]))
            assert c["versions.llvm"] and c["target.triple"] == "nvptx64-nvidia-cuda"
            if v.kind == "cubin":
                assert str(c["cuda.ptxas"]).startswith("Cuda compilation tools")
                assert c["cuda.ptxas_flags"] == "-O3"
                assert data[:4] == b"\x7fELF"
            keys.add(v.key)
    assert len(keys) == 3 * len(KERNELS)  # no two variants share a key


def test_ptx_entry_matches_the_kernel_abi(cuda_artifact: Path) -> None:
    cuda = read_manifest(cuda_artifact).cuda
    assert cuda is not None
    for k in cuda.kernels:
        ptx = (cuda_artifact / k.variants[0].file).read_text()
        assert ".version 7.0\n.target sm_80\n" in ptx
        assert ".extern" not in ptx  # no symbol left for the driver to resolve
        assert "trap;" not in ptx  # errors go to the record, never kill the context
        assert ".visible .global .align 8 .b8 __gradc_error[56];" in ptx
        assert bool(re.search(r"bar.sync\s+0;", ptx)) == (k.name in BARRIERS)
        if k.name == "block_sum_shared":  # the block's array: shared memory, 8 doubles
            assert re.search(r"\.shared \.align 16 \.b8 \S+shared0\[64\];", ptx)
            assert "st.shared" in ptx and "ld.shared" in ptx
        if k.name == "row_sums":  # Python rounds s - 0.25 * a twice: no contraction to an fma
            assert "fma" not in ptx and "mul.rn.f64" in ptx
        head = ptx[ptx.index(f".visible .entry {k.symbol}(") :]
        params = re.findall(r"\.param (\.\w+)", head[: head.index(")")])
        expected = ""
        for _, t in k.params:
            parsed = parse_type(t)
            ndim = getattr(parsed, "ndim", 0)
            expected += kernel_param_format("array" if ndim else t, ndim)
        codes = {".f64": "d", ".f32": "f", ".u64": "q", ".u32": "i", ".u8": "B"}
        assert "".join(codes[p] for p in params) == expected.replace("Q", "q"), k.name


@pytest.mark.slow  # the whole corpus (26 kernels) built again in another process: ~40 s
def test_builds_are_byte_identical_across_processes(cuda_artifact: Path, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    source = tmp_path / "src" / CORPUS.name
    source.write_bytes(CORPUS.read_bytes())
    out = tmp_path / "elsewhere.gradc"
    subprocess.run(
        [sys.executable, "-m", "gradc.cli.main", "build", str(source), "-o", str(out),
         "--target", "cuda", "--cuda-arch", "sm_90,sm_80"],
        check=True, capture_output=True, cwd=tmp_path,
    )  # fmt: skip
    ours = {
        p.relative_to(cuda_artifact): p.read_bytes()
        for p in cuda_artifact.rglob("*")
        if p.is_file()
    }
    theirs = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    ours = {k: v for k, v in ours.items() if not k.name.startswith(".")}
    theirs = {k: v for k, v in theirs.items() if not k.name.startswith(".")}
    assert ours == theirs


def test_ptxas_failure_is_a_build_error() -> None:
    from gradc.compiler.codegen.ptx import assemble
    from gradc.compiler.diagnostics import CudaBuildError

    toolchain = toolchain_or_skip()
    with pytest.raises(CudaBuildError, match=r"ptxas failed for kernel k \(sm_80\): .*<ptx>"):
        assemble(".version 7.0\n.target sm_80\nnonsense\n", "sm_80", toolchain, "k")


def test_leftover_symbols_are_refused_before_emission() -> None:
    import llvmlite.binding as llvm

    from gradc.compiler.codegen.ptx import check_symbols
    from gradc.compiler.diagnostics import CudaBuildError

    mod = llvm.parse_assembly(
        "declare double @llvm.sin.f64(double)\ndeclare double @sin(double)\n"
        "declare double @llvm.fabs.f64(double)\ndeclare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    )
    with pytest.raises(
        CudaBuildError, match=re.escape("kernel e calls 'llvm.sin.f64', 'sin', which")
    ):
        check_symbols(mod, "e")


def test_a_kernel_that_allocates_is_a_build_error(tmp_path: Path) -> None:
    from gradc.compiler.diagnostics import CudaBuildError
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    toolchain_or_skip()
    src = tmp_path / "alloc.py"
    src.write_text(
        "import numpy as np\nimport gradc\nfrom gradc import cuda, f64\n\n@gradc.kernel\n"
        "def k(x: f64[:]):\n    t = np.zeros(x.shape[0])\n    x[cuda.grid(1)] = t[0]\n"
    )
    with pytest.raises(CudaBuildError, match="gradc_rt1_alloc"):
        build_module(src, CompilerOptions(cuda_archs=("sm_80",)))


def test_cli_target_cuda_and_inspect(cuda_artifact: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gradc.cli.main import cli

    bad = CliRunner().invoke(
        cli,
        [
            "build",
            str(CORPUS),
            "-o",
            str(tmp_path / "x"),
            "--target",
            "cuda",
            "--cuda-arch",
            "sm80",
        ],
    )
    assert bad.exit_code == 2 and "not a CUDA arch: 'sm80'" in bad.output
    shown = CliRunner().invoke(cli, ["inspect", str(cuda_artifact)], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "CUDA kernels, archs sm_80, sm_90" in shown.output
    assert "ptx (sm_80, ISA 7.0)" in shown.output and "sm_90 cubin" in shown.output


def test_a_rebuild_reuses_intact_variants(
    cuda_artifact: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from gradc.compiler import cuda_backend
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    art = tmp_path / "copy.gradc"
    shutil.copytree(cuda_artifact, art)
    compiled: list[str] = []
    original = cuda_backend.compile_kernel

    def counting(module, plan, *args):  # type: ignore[no-untyped-def]
        compiled.append(plan.name)
        return original(module, plan, *args)

    monkeypatch.setattr(cuda_backend, "compile_kernel", counting)
    before = (art / "manifest.msgpack").read_bytes()
    build_artifact(CORPUS, art, CompilerOptions(cuda_archs=ARCHS))
    assert compiled == []
    assert (art / "manifest.msgpack").read_bytes() == before
    manifest = read_manifest(art)
    assert manifest.cuda is not None
    damaged = art / manifest.cuda.kernel("total").variants[2].file
    damaged.write_bytes(b"not a cubin")
    warned: list[str] = []
    options = CompilerOptions(cuda_archs=ARCHS)
    build_artifact(CORPUS, art, options, warn=warned.append, on_damage=warned.append)
    assert compiled == ["total"]
    assert any("cannot reuse the sm_90 cubin of kernel 'total'" in w for w in warned)
    assert (art / "manifest.msgpack").read_bytes() == before
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() in damaged.name
