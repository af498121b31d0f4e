"""Fixtures of the CUDA tests: the kernel corpus built for sm_80 and sm_90 (once), skipped
where the CUDA toolkit (ptxas, libdevice) is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).parent / "kernels_corpus.py"
ARCHS = ("sm_80", "sm_90")


def toolchain_or_skip() -> Any:
    """The CUDA toolchain, or skip the test (no ptxas or libdevice here)."""
    from gradc.compiler.codegen.ptx import find_toolchain
    from gradc.compiler.diagnostics import CudaBuildError

    try:
        return find_toolchain()
    except CudaBuildError as exc:
        pytest.skip(str(exc))


_SHUFFLED: dict[str, Any] = {}


@pytest.fixture(
    scope="module", params=["sequential", pytest.param("shuffled", marks=pytest.mark.slow)]
)
def lib(request: pytest.FixtureRequest, compile_module: Any, tmp_path_factory: Any) -> Any:
    """The corpus's CPU build: its grid loops in order, and (slow) in a shuffled order
    (``CompilerOptions.shuffle_threads``), where every result must be the same."""
    if request.param == "sequential":
        return compile_module(CORPUS)
    if "lib" not in _SHUFFLED:
        import gradc
        from gradc.compiler.options import CompilerOptions
        from tests.shared_builds import shared_artifact

        options = CompilerOptions(shuffle_threads=True)
        _SHUFFLED["lib"] = gradc.load(shared_artifact(CORPUS, options, tmp_path_factory))
    return _SHUFFLED["lib"]


@pytest.fixture(scope="session")
def cuda_artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus's artifact directory, built with ``--target cuda --cuda-arch sm_80,sm_90``."""
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    toolchain_or_skip()
    out = tmp_path_factory.mktemp("cuda") / "kernels_corpus.gradc"
    build_artifact(CORPUS, out, CompilerOptions(cuda_archs=ARCHS))
    return out
