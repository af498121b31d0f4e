"""A manifest edited consistently (every blob hash still valid) is refused, never trusted.

Each object carries its ABI description (``gradc.artifacts.abi``); the loader compares it
with the manifest before linking. Before that check, changing an entry's result type or
swapping two entries' objects segfaulted on the first call, a parameter relabelled ``i64``
made an ``f64`` function return int64 bit patterns, and swapped fast-call wrappers
silently ran another export. Every edited artifact is loaded and called in one child
process (a crash there fails the test and names the case), and must raise
``AbiMismatchError`` at load naming the export and what disagrees.
"""

from __future__ import annotations

import contextlib
import json
import math
import runpy
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest

import gradc
from gradc.artifacts.abi import ABI_VERSION, Signature
from gradc.artifacts.abi.description import AbiMismatchError
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.manifest import MANIFEST_NAME
from gradc.artifacts.store import previous_build, read_manifest, write_artifact
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

from .objects import F64, I32, build, entry

SOURCE = """
import math
import gradc
from gradc import f64, i64


@gradc.export
def poly(x: f64, n: i64) -> f64:
    s = 0.0
    for k in range(n):
        s += math.sin(x * k) / (k + 1)
    return s


@gradc.export("f64(f64, f64)")
def hyp(a, b):
    return math.sqrt(a * a + b * b)


@gradc.export("f64(f64, f64)")
def diff(a, b):
    return a - b


@gradc.export
def pair(x: f64) -> tuple[f64, i64]:
    return (x * 2.0, 3)


@gradc.export
def scale(a: f64[:], s: f64) -> None:
    for i in range(a.shape[0]):
        a[i] = a[i] * s


@gradc.export
def total(a: f64[:]) -> f64:
    s = 0.0
    for v in a:
        s += v
    return s


@gradc.export
def corner(m: f64[:, ::1]) -> f64:
    return m[0, 1]


@gradc.export
def ramp(n: i64) -> f64[:]:
    out = np.zeros(n)
    for i in range(n):
        out[i] = i * 0.5
    return out


d_poly = gradc.grad(poly, wrt="x")
"""

# The same module run by CPython: the oracle for what a loaded artifact returns.
CALLS = {
    "poly": "lib.poly(0.7, 4)",
    "hyp": "lib.hyp(3.0, 4.0)",
    "diff": "lib.diff(3.0, 4.0)",
    "pair": "lib.pair(1.5)",
    "scale": "(lambda a: (lib.scale(a, 3.0), a)[1])(np.arange(3.0))",
    "total": "lib.total(np.arange(4.0))",
    "corner": "lib.corner(np.arange(6.0).reshape(2, 3))",
    "ramp": "lib.ramp(3)",
    "d_poly": "lib.d_poly(0.7, 4)",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("abi")
    source = folder / "abimod.py"
    source.write_text("import numpy as np\n" + SOURCE)
    out = folder / "abimod.gradc"
    write_artifact(out, build_module(source, CompilerOptions()))
    return out


def _oracle(folder: Path) -> dict[str, Any]:
    """CPython's value of every call in CALLS (d_poly by central differences)."""
    g = runpy.run_path(str(folder / "abimod.py"))
    lib = type("Py", (), {k: staticmethod(v) for k, v in g.items() if callable(v)})
    values = {
        name: eval(call, {"lib": lib, "np": np}) for name, call in CALLS.items() if name != "d_poly"
    }
    h = 1e-6
    values["d_poly"] = (g["poly"](0.7 + h, 4) - g["poly"](0.7 - h, 4)) / (2 * h)
    return values


def _entries(raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in raw["entries"]}


def _swap(a: str, b: str, *fields: str) -> Callable[[dict[str, Any]], None]:
    def edit(raw: dict[str, Any]) -> None:
        ents = _entries(raw)
        for f in fields:
            ents[a][f], ents[b][f] = ents[b][f], ents[a][f]

    return edit


def _set_param(name: str, index: int, type_: str) -> Callable[[dict[str, Any]], None]:
    def edit(raw: dict[str, Any]) -> None:
        _entries(raw)[name]["signature"]["params"][index][1] = type_

    return edit


def _set(name: str, path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(raw: dict[str, Any]) -> None:
        node = _entries(raw)[name]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


def _rename_params(raw: dict[str, Any]) -> None:
    params = _entries(raw)["diff"]["signature"]["params"]
    params[0][0], params[1][0] = params[1][0], params[0][0]


def _retarget(raw: dict[str, Any]) -> None:
    raw["target"]["cpu"] = "generic"  # runs on every host, but is not what was built


_OBJECT = ("symbol", "object", "sha256", "key")

# case -> (edit, export to call, words the error must contain)
CASES: dict[str, tuple[Callable[[dict[str, Any]], None], str, tuple[str, ...]]] = {
    "result_scalar": (_set("pair", ("signature", "result"), "f64"), "pair", ("'pair'", "result type")),
    "result_tuple": (_set("hyp", ("signature", "result"), "tuple[f64,f64]"), "hyp", ("'hyp'", "result type")),
    "result_array": (_set("total", ("signature", "result"), "f64[:]"), "total", ("'total'", "result type")),
    "result_none": (_set("ramp", ("signature", "result"), "none"), "ramp", ("'ramp'", "result type")),
    "param_dtype": (_set_param("hyp", 0, "i64"), "hyp", ("'hyp'", "parameter 'a'", "i64")),
    "param_array_dtype": (_set_param("total", 0, "i64[:]"), "total", ("'total'", "parameter 'a'")),
    "param_rank": (_set_param("total", 0, "f64[:, :]"), "total", ("'total'", "f64[:, :]")),
    "param_layout_A": (_set_param("corner", 0, "f64[:, :]"), "corner", ("'corner'", "parameter 'm'")),
    "param_layout_F": (_set_param("corner", 0, "f64[::1, :]"), "corner", ("'corner'", "f64[::1, :]")),
    "param_names": (_rename_params, "diff", ("'diff'", "parameter 0")),
    "param_dropped": (_set("poly", ("signature", "params"), [["x", "f64"]]), "poly", ("'poly'", "parameters")),
    "swap_objects": (_swap("poly", "scale", *_OBJECT), "poly", ("'poly'", "export name")),
    "swap_same_signature": (_swap("hyp", "diff", *_OBJECT), "hyp", ("'hyp'", "export name")),
    "swap_object_files": (_swap("poly", "total", "object", "sha256"), "poly", ("'poly'", "does not define")),
    "dropped_writes": (_set("scale", ("signature", "writes"), []), "scale", ("'scale'", "written parameters")),
    "swap_wrappers": (_swap("poly", "d_poly", "wrapper"), "poly", ("'poly'", "fast-call wrapper")),
    "swap_wrappers_other": (_swap("hyp", "pair", "wrapper"), "hyp", ("'hyp'", "fast-call wrapper")),
    "abi_version_old": (_set("hyp", ("abi_version",), 1), "hyp", ("'hyp'", "calling convention version 1", "rebuild")),
    "abi_version_new": (_set("hyp", ("abi_version",), ABI_VERSION + 1), "hyp", ("'hyp'", f"version {ABI_VERSION + 1}")),
    "target": (_retarget, "poly", ("'poly'", "target")),
}  # fmt: skip

_CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import gradc
    for case, path, call in json.loads(sys.argv[1]):
        print(json.dumps({"start": case}), flush=True)
        try:
            lib = gradc.load(path, fastcall=True)
            value = eval(call, {"lib": lib, "np": np})
            out = {"case": case, "value": repr(value)}
        except Exception as exc:
            out = {"case": case, "error": type(exc).__name__, "message": str(exc)}
        print(json.dumps(out), flush=True)
    """
)


def _edited(built: Path, folder: Path, name: str, edit: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of ``built`` whose manifest is edited by ``edit``; the blobs are untouched, so
    every sha256 check passes and the manifest still validates."""
    art = folder / f"{name}.gradc"
    shutil.copytree(built, art)
    raw = msgpack.unpackb((art / MANIFEST_NAME).read_bytes(), raw=False)
    edit(raw)
    for e in raw["entries"]:  # keep the structured signature (1.4) in step with the strings
        sig = e["signature"]
        sig["types"] = Signature.parse(sig["params"], sig["result"]).types_data()
    (art / MANIFEST_NAME).write_bytes(msgpack.packb(raw, use_bin_type=True))
    read_manifest(art)  # a consistent edit: the manifest itself is valid
    return art


def _run_child(jobs: list[tuple[str, str, str]]) -> dict[str, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(jobs)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    results: dict[str, dict[str, Any]] = {}
    started = None
    for line in done.stdout.splitlines():
        record = json.loads(line)
        if "start" in record:
            started = record["start"]
        else:
            results[record["case"]] = record
    assert done.returncode == 0, (
        f"the child crashed (status {done.returncode}) in case {started!r}:\n{done.stderr[-2000:]}"
    )
    return results


def test_edited_manifests_are_refused_at_load(built: Path, tmp_path: Path) -> None:
    jobs = [
        (case, str(_edited(built, tmp_path, case, edit)), CALLS[export])
        for case, (edit, export, _) in CASES.items()
    ]
    results = _run_child(jobs)
    for case, (_, _, words) in CASES.items():
        r = results[case]
        assert "error" in r, f"{case}: the edited artifact loaded and returned {r['value']}"
        assert r["error"] in ("AbiMismatchError", "ArtifactError"), (case, r)
        for w in words:
            assert w in r["message"], f"{case}: {w!r} not in {r['message']!r}"


def test_unedited_artifact_matches_cpython(built: Path, tmp_path: Path) -> None:
    """The control: the same child process, the artifact as built, CPython's values."""
    results = _run_child([(name, str(built), call) for name, call in CALLS.items()])
    expected = _oracle(built.parent)
    for name in CALLS:
        got = eval(results[name]["value"], {"array": np.array, "np": np})
        want = expected[name]
        if name == "d_poly":
            assert math.isclose(got, want, rel_tol=1e-6), (got, want)
        else:
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=name)


def test_swapped_wrappers_unused_without_fastcall(built: Path, tmp_path: Path) -> None:
    """With fastcall off no wrapper is read or linked: the entries (which agree with the
    manifest) run, and give CPython's values."""
    art = _edited(built, tmp_path, "wrappers", _swap("poly", "d_poly", "wrapper"))
    with pytest.raises(AbiMismatchError, match="fast-call wrapper"):
        gradc.load(art, fastcall=True)
    lib = gradc.load(art, fastcall=False)
    assert lib.poly(0.7, 4) == _oracle(built.parent)["poly"]


def test_object_without_description_is_refused(tmp_path: Path) -> None:
    """An object of calling convention 1 (no ``__gradc_abi_`` symbol) under a manifest that
    claims the current version: refused before linking, naming the export."""

    def body(b: Any, fn: Any, args: Any, out: Any, err: Any) -> None:
        b.store(args[0], out)
        b.ret(I32(0))

    e = entry("ident", [("x", "f64", F64)], ("f64", F64), body)
    stripped = _without_description(e.object_code)
    old = type(e)(**{**e.__dict__, "object_code": stripped})
    write_artifact(tmp_path / "old.gradc", build(old))
    with pytest.raises(AbiMismatchError, match=r"'ident'.*carries no ABI description"):
        gradc.load(tmp_path / "old.gradc")
    write_artifact(tmp_path / "new.gradc", build(e))  # the control: the described object
    assert gradc.load(tmp_path / "new.gradc").ident(2.5) == 2.5


def _without_description(code: bytes) -> bytes:
    """``code`` with the description symbol's name overwritten (so it is no longer found)."""
    from gradc.artifacts.abi.symbols import DESCRIPTION_PREFIX

    marker = DESCRIPTION_PREFIX.encode()
    assert code.count(marker) == 1
    return code.replace(marker, b"__gradc_xyz_")


def test_rebuild_does_not_reuse_disagreeing_objects(built: Path, tmp_path: Path) -> None:
    """``gradc build`` reuses objects by key; a manifest whose keys were swapped between two
    exports of one signature must not make it reuse (and ship) the wrong objects."""
    art = _edited(built, tmp_path, "keys", _swap("hyp", "diff", "key"))
    previous = previous_build(art)
    m = read_manifest(art)
    assert m.entry("hyp").key not in previous.reusable
    assert m.entry("diff").key not in previous.reusable
    assert any("'hyp'" in p for p in previous.problems)
    source = built.parent / "abimod.py"
    write_artifact(art, build_module(source, CompilerOptions(), cache=previous.reusable))
    lib = gradc.load(art)
    expected = _oracle(built.parent)
    assert lib.hyp(3.0, 4.0) == expected["hyp"]
    assert lib.diff(3.0, 4.0) == expected["diff"]


def test_intact_artifact_is_fully_reusable(built: Path) -> None:
    previous = previous_build(built)
    assert previous.problems == []
    assert {e.key for e in read_manifest(built).entries} <= set(previous.reusable)


@pytest.mark.parametrize("bad", [b"", b"\x7fELF", b"\x7fELF\x02\x01" + b"\xff" * 200])
def test_unreadable_object_is_an_artifact_error(bad: bytes) -> None:
    from gradc.artifacts.abi.description import check_object
    from gradc.artifacts.manifest import Entry, EntrySignature, Target

    e = Entry(
        "f",
        EntrySignature((("x", "f64"),), "f64"),
        ABI_VERSION,
        "gradc_f_0",
        "objects/x.o",
        "0",
        "0",
    )
    with pytest.raises(ArtifactError, match="'f'"):
        check_object("art", e, Target("t", "c", ""), bad)


def test_runtime_mode_rebuilds_an_artifact_of_another_calling_convention(built: Path) -> None:
    """Runtime mode treats an artifact whose entries speak another calling convention as
    stale (it rebuilds it) instead of loading it and warning about the refusal."""
    from dataclasses import replace

    from gradc.runtime_mode import is_fresh

    source = built.parent / "abimod.py"
    manifest = read_manifest(built)
    assert is_fresh(manifest, source, check_options=False)
    old = replace(manifest, entries=tuple(replace(e, abi_version=1) for e in manifest.entries))
    assert not is_fresh(old, source, check_options=False)


def test_damaged_objects_never_break_the_check(built: Path) -> None:
    """Hostile bytes under a valid sha256 (the manifest may name any blob): every single-
    byte change of a real object either keeps the check passing or raises ArtifactError —
    the ELF reader and the description decoder never raise anything else or read out of
    bounds."""
    import random

    from gradc.artifacts.abi.description import check_object

    m = read_manifest(built)
    e = m.entry("poly")
    code = (built / e.object).read_bytes()
    check_object("art", e, m.target, code)  # the control
    rng = random.Random(18)
    # the ELF header and section headers (where offsets live), then anywhere
    spots = list(range(64)) + [rng.randrange(len(code)) for _ in range(300)]
    for i in spots:
        for value in (0x00, 0xFF, rng.randrange(256)):
            damaged = bytearray(code)
            damaged[i] = value
            with contextlib.suppress(ArtifactError):
                check_object("art", e, m.target, bytes(damaged))
    for cut in (0, 1, 16, 63, 64, len(code) // 2, len(code) - 1):
        with pytest.raises(ArtifactError):
            check_object("art", e, m.target, code[:cut])
