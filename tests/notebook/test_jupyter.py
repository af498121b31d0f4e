"""Runtime mode in notebooks: exports defined in cells, compiled from the cell's source.

``test_notebook_in_a_real_kernel`` runs a notebook (built here with nbformat) top to
bottom in a real Jupyter kernel (nbclient + ipykernel), twice: the first run compiles, the
second, in a fresh kernel, loads the cached artifact. The faster test drives IPython's
shell in a subprocess through the same cells. Oracles: the plain Python function
(``py_func``) and central finite differences; whether a run compiled is read from the
``gradc`` log (``GRADC_LOG=info``), which the kernel shows as the cell's stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

IMPORTS = "import json\nimport math\nimport numpy as np\nimport gradc\nfrom gradc import f64\n"

#: The gradc cell: it imports nothing itself (the first cell did, as in a notebook).
GRADC_CELL = """\
@gradc.export
def energy(x: f64[:], scale: f64) -> f64:
    s = 0.0
    for i in range(x.shape[0]):
        s += scale * x[i] * x[i] * x[i] - math.sin(x[i])
    return s


d_energy = gradc.grad(energy, wrt="x")
"""

#: Checks the gradient against central differences of the plain function, prints a report.
GRADIENT_CELL = """\
x = np.linspace(-1.0, 1.5, 7)
g = d_energy(x, 0.3)
h = 1e-6
fd = np.array([
    (energy.py_func(x + h * e, 0.3) - energy.py_func(x - h * e, 0.3)) / (2 * h)
    for e in np.eye(x.size)
])
assert np.allclose(g, fd, rtol=1e-6, atol=1e-8), (g, fd)
print(json.dumps({
    "value": energy(x, 0.3), "oracle": energy.py_func(x, 0.3),
    "max_err": float(np.max(np.abs(g - fd))), "artifact": str(energy.artifact),
    "source": str(energy.source),
}))
"""

BAD_CELL = """\
@gradc.export
def broken(x: f64) -> f64:
    return [x]


broken(1.0)
"""


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADC_")}
    env.update({"GRADC_CACHE_DIR": str(tmp_path / "cache"), "GRADC_LOG": "info"})
    return env


def _report(text: str) -> dict[str, object]:
    report: dict[str, object] = json.loads(
        [line for line in text.splitlines() if line.startswith("{")][-1]
    )
    assert report["value"] == pytest.approx(report["oracle"], rel=1e-13)
    assert isinstance(report["max_err"], float) and report["max_err"] < 1e-6
    return report


#: Runs the cells in IPython's shell (store_history: cells are numbered like a notebook's).
SHELL = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
for cell in json.loads(sys.argv[1]):
    shell.run_cell(cell, store_history=True)
"""


def test_cells_in_ipython_shell_compile_gradient_and_name_the_cell(tmp_path: Path) -> None:
    pytest.importorskip("IPython")
    cells = [IMPORTS, GRADC_CELL, GRADIENT_CELL, BAD_CELL]
    proc = subprocess.run(
        [sys.executable, "-c", SHELL, json.dumps(cells)],
        cwd=tmp_path,
        env={**_env(tmp_path), "NO_COLOR": "1", "TERM": "dumb"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    report = _report(proc.stdout)
    assert report["source"] == "Cell In[2]"
    assert "gradc: compiled Cell In[2]" in out
    line = BAD_CELL.splitlines().index("    return [x]") + 1
    assert f"Cell In[4]:{line}:12: error:" in out, out


def test_notebook_in_a_real_kernel_then_served_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    for key in [k for k in os.environ if k.startswith("GRADC_")]:
        monkeypatch.delenv(key)
    for key, value in _env(tmp_path).items():
        if key.startswith("GRADC_"):
            monkeypatch.setenv(key, value)

    def run() -> tuple[dict[str, object], str]:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(c) for c in (IMPORTS, GRADC_CELL, GRADIENT_CELL)]
        client = nbclient.NotebookClient(
            nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
        )
        client.execute()
        texts = {"stdout": "", "stderr": ""}
        for cell in nb.cells:
            for output in cell.outputs:
                if output.get("output_type") == "stream":
                    texts[output["name"]] += output["text"]
        return _report(texts["stdout"]), texts["stderr"]

    first, first_log = run()
    assert "gradc: compiled Cell In[2]" in first_log, first_log
    second, second_log = run()
    assert "gradc: hit Cell In[2]" in second_log, second_log
    assert "compiled" not in second_log
    assert second["artifact"] == first["artifact"]
    assert Path(str(first["artifact"])).parent == tmp_path / "cache"
