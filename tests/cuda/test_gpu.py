"""``pytest -m gpu``: the checks of ``gpu_check.py`` on a real GPU (skipped without one,
or without CuPy)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cuda import gpu_check, gpu_check_ad

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, Any]:
    import gradc
    from gradc.artifacts.errors import ArtifactError
    from gradc.artifacts.loader.cuda_driver import open_driver

    cp = pytest.importorskip("cupy")
    try:
        facts = open_driver().facts()
    except ArtifactError as exc:
        pytest.skip(str(exc))
    art = gpu_check.build(
        tmp_path_factory.mktemp("gpu") / "k.gradc", f"sm_{facts.cc[0]}{facts.cc[1]}"
    )
    return art, gradc.load(art, target="cuda"), cp


def test_forward(gpu: tuple[Path, Any, Any]) -> None:
    gpu_check.check_forward(gpu[1], gpu[2])


def test_shared_memory_and_vectorize(gpu: tuple[Path, Any, Any]) -> None:
    gpu_check.check_shared_and_vectorize(gpu[0], gpu[1], gpu[2])


def test_ptx_jit_agrees(gpu: tuple[Path, Any, Any]) -> None:
    gpu_check.check_ptx_jit(gpu[0], gpu[1], gpu[2])


def test_wrong_arch_refused(gpu: tuple[Path, Any, Any]) -> None:
    gpu_check.check_wrong_arch(gpu[0])


def test_device_error(gpu: tuple[Path, Any, Any]) -> None:
    gpu_check.check_device_error(gpu[1], gpu[2])


def test_stream(gpu: tuple[Path, Any, Any]) -> None:
    gpu_check.check_stream(gpu[1], gpu[2])


@pytest.fixture(scope="module")
def gpu_ad(
    gpu: tuple[Path, Any, Any], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Any, Any]:
    import gradc
    from gradc.artifacts.loader.cuda_driver import open_driver

    facts = open_driver().facts()
    art = gpu_check_ad.build(
        tmp_path_factory.mktemp("gpu_ad") / "k.gradc", f"sm_{facts.cc[0]}{facts.cc[1]}"
    )
    return art, gradc.load(art, target="cuda"), gpu[2]


def test_derivative_kernels(gpu_ad: tuple[Path, Any, Any]) -> None:
    gpu_check_ad.check_derivatives(gpu_ad[0], gpu_ad[1], gpu_ad[2])


def test_gradient_bandwidth(gpu_ad: tuple[Path, Any, Any]) -> None:
    print(gpu_check_ad.gradient_bandwidth(gpu_ad[1], gpu_ad[2]))
