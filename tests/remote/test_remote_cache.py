"""The shared remote cache (gradc.artifacts.remote) against a real S3 server (moto).

"Machines" are separate local artifact directories (and, where it matters, separate
processes) sharing one bucket. Oracles: CPython running the same source for the values,
a build without any remote cache for the artifact's bytes (builds are byte-reproducible,
so a correct build from downloaded objects is byte-identical to a local one), and
``find_damage`` for the local artifact's integrity.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import boto3
import msgpack
import pytest
from click.testing import CliRunner

import gradc
from gradc.artifacts.remote import (
    RemoteCache,
    RemoteOptions,
    build_entries,
    encode_record,
    foreign_blobs,
    host_toolchain,
    open_filesystem,
)
from gradc.artifacts.store import find_damage, read_manifest
from gradc.cli.main import cli
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions

from ..cache.helpers import MODULE, build, files, run_python
from .conftest import S3Server

ARGS = (1.5, 0.25)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    path = tmp_path / "src" / "m.py"
    path.write_text(MODULE)
    return path


@pytest.fixture(scope="session")
def machine_a(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """Machine A's build of MODULE (compiled once per session) and its artifact: the
    byte oracle of every other machine's build."""
    from gradc.artifacts.store import write_artifact

    folder = tmp_path_factory.mktemp("machine-a")
    (folder / "m.py").write_text(MODULE)
    result = build_module(folder / "m.py", CompilerOptions())
    write_artifact(folder / "m.gradc", result)
    return result, folder / "m.gradc"


def _oracle(source: Path) -> dict[str, float]:
    """The module's exports run by CPython (GRADC_PLAIN_PYTHON is set in tests/conftest.py)."""
    scope: dict[str, Any] = {}
    exec(compile(source.read_text(), str(source), "exec"), scope)
    return {"f": scope["f"](*ARGS), "g": scope["g"](ARGS[0]), "total": scope["total"](7)}


def _check_artifact(art: Path, source: Path) -> None:
    """``art`` is intact, loads, and computes what CPython computes."""
    assert find_damage(art) == []
    lib = gradc.load(art)
    want = _oracle(source)
    assert lib.f(*ARGS) == want["f"]
    assert lib.g(ARGS[0]) == want["g"]
    assert lib.total(7) == want["total"]


def _build(source: Path, out: Path, url: str, *args: str) -> str:
    """``gradc build`` in this process with ``--remote-cache url``; must succeed; its
    stdout and stderr."""
    r = build(source, out, "--remote-cache", url, "--explain", *args)
    assert r.exit_code == 0, r.output
    return r.output


@functools.lru_cache
def _client(endpoint: str) -> Any:
    return boto3.client("s3", endpoint_url=endpoint)


def _s3(env: dict[str, str]) -> Any:
    """A boto3 client of the test server (one per endpoint: each costs ~1 s to make)."""
    return _client(env["AWS_ENDPOINT_URL"])


@functools.lru_cache
def _filesystem(endpoint: str) -> Any:
    """An s3fs filesystem of the server at ``endpoint`` (reused by seeding publishers)."""
    return open_filesystem(RemoteOptions("s3://any/where"))[0]


def _split(url: str) -> tuple[str, str]:
    bucket, prefix = url.removeprefix("s3://").split("/", 1)
    return bucket, prefix


def _keys(url: str, env: dict[str, str]) -> list[str]:
    bucket, _ = _split(url)
    out = _s3(env).list_objects_v2(Bucket=bucket)
    return sorted(o["Key"] for o in out.get("Contents", []))


def _record(url: str, env: dict[str, str], key: str) -> dict[str, Any]:
    bucket, prefix = _split(url)
    body = _s3(env).get_object(Bucket=bucket, Key=f"{prefix}/ac/{key}")["Body"].read()
    record: dict[str, Any] = msgpack.unpackb(body)
    return record


def _put(url: str, env: dict[str, str], rel: str, data: bytes) -> None:
    bucket, prefix = _split(url)
    _s3(env).put_object(Bucket=bucket, Key=f"{prefix}/{rel}", Body=data)


def _get(url: str, env: dict[str, str], rel: str) -> bytes:
    bucket, prefix = _split(url)
    data: bytes = _s3(env).get_object(Bucket=bucket, Key=f"{prefix}/{rel}")["Body"].read()
    return data


def _delete(url: str, env: dict[str, str], rel: str) -> None:
    bucket, prefix = _split(url)
    _s3(env).delete_object(Bucket=bucket, Key=f"{prefix}/{rel}")


def _publish(result: Any, url: str) -> None:
    found: list[str] = []
    shared = (_filesystem(os.environ["AWS_ENDPOINT_URL"]), url.removeprefix("s3://"))
    cache = RemoteCache(RemoteOptions(url), host_toolchain(), warn=found.append, filesystem=shared)
    cache.publish_build(result)
    assert found == []


@pytest.fixture
def seeded(machine_a: tuple[Any, Path], remote_url: str) -> Path:
    """Machine A published its build to the (fresh) bucket; its artifact."""
    _publish(machine_a[0], remote_url)
    return machine_a[1]


def _f_key(art: Path) -> str:
    return read_manifest(art).entry("f").key


# ------------------------------------------------------------------ two machines


def _cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GRADC_")}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-m", "gradc", *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )


#: Runtime mode in a child: imports ``m`` and reports values and whether code was generated.
CHILD = """
import json, sys
import m
out = {"f": m.f(1.5, 0.25), "g": m.g(1.5), "total": m.total(7)}
out["emitted"] = any(n in sys.modules for n in
                     ("gradc.compiler.codegen.lower", "gradc.compiler.codegen.runtime"))
print(json.dumps(out))
"""


@pytest.mark.slow
def test_two_machines_share_one_bucket_and_runtime_mode_downloads(
    source: Path, tmp_path: Path, remote_url: str, s3_env: dict[str, str]
) -> None:
    env = {**s3_env, "GRADC_REMOTE_CACHE": remote_url}
    machine_a, machine_b = tmp_path / "A", tmp_path / "B"
    machine_a.mkdir()
    machine_b.mkdir()
    a = _cli(["build", str(source), "-o", "m.gradc", "--timings"], machine_a, env)
    assert a.returncode == 0, a.stderr
    assert "emit" in a.stdout and "published" in a.stdout
    b = _cli(["build", str(source), "-o", "m.gradc", "--timings", "--explain"], machine_b, env)
    assert b.returncode == 0, b.stderr
    assert "warning" not in b.stderr
    # nothing was lowered or emitted: every export (and the runtime) was downloaded
    assert "lower" not in b.stdout and "emit" not in b.stdout, b.stdout
    for name in ("f", "g", "total"):
        assert f"remote hit  {name}: key " in b.stdout
    assert "4 objects downloaded" in b.stdout
    assert files(machine_b / "m.gradc") == files(machine_a / "m.gradc")
    _check_artifact(machine_b / "m.gradc", source)

    # a third machine, runtime mode: its first import downloads instead of compiling
    machine_c = tmp_path / "C"
    machine_c.mkdir()
    (machine_c / "m.py").write_text(source.read_text())
    child = run_python(
        CHILD, cwd=machine_c, env={**env, "GRADC_CACHE_DIR": str(tmp_path / "cache-c")}
    )
    assert child.returncode == 0, child.stderr
    assert "warning" not in child.stderr.lower(), child.stderr
    got = json.loads(child.stdout.splitlines()[-1])
    assert got.pop("emitted") is False
    assert got == _oracle(source)


def test_first_build_publishes_blobs_before_records(
    seeded: Path, remote_url: str, s3_env: dict[str, str]
) -> None:
    manifest = read_manifest(seeded)
    keys = _keys(remote_url, s3_env)
    _, prefix = _split(remote_url)
    records = {k.rsplit("/", 1)[1] for k in keys if k.startswith(f"{prefix}/ac/")}
    blobs = {k.rsplit("/", 1)[1] for k in keys if k.startswith(f"{prefix}/cas/")}
    assert {e.key for e in manifest.entries} | {manifest.runtime.key} == records  # type: ignore[union-attr]
    for key in records:
        record = _record(remote_url, s3_env, key)
        assert record["key"] == key and record["toolchain"] == host_toolchain()
        assert set(record["blobs"].values()) <= blobs
    assert {e.sha256 for e in manifest.entries} <= blobs


def test_second_machine_compiles_nothing(
    source: Path, tmp_path: Path, seeded: Path, remote_url: str
) -> None:
    """In-process twin of the two-machine test above (which is slow: three processes)."""
    out = tmp_path / "B" / "m.gradc"
    text = _build(source, out, remote_url, "--timings", "--remote-cache-readonly")
    assert "lower" not in text and "emit" not in text, text
    assert "4 objects downloaded" in text and "warning" not in text
    assert files(out) == files(seeded)
    _check_artifact(out, source)


def test_readonly_consumer_publishes_nothing(
    source: Path, tmp_path: Path, remote_url: str, s3_env: dict[str, str]
) -> None:
    text = _build(source, tmp_path / "m.gradc", remote_url, "--remote-cache-readonly")
    assert "0 objects downloaded" in text and "published" not in text
    assert _keys(remote_url, s3_env) == []


# ------------------------------------------------------------------ faults


def _machine_b(source: Path, tmp_path: Path, url: str, seeded: Path) -> str:
    """Machine B builds with the damaged cache: it succeeds, f is compiled again, and the
    artifact is byte-identical to machine A's (a correct build), intact and right."""
    out = tmp_path / "B" / "m.gradc"
    text = _build(source, out, url)
    assert "miss  f" in text
    assert "remote hit  g" in text
    assert files(out) == files(seeded)
    _check_artifact(out, source)
    return text


@pytest.mark.parametrize("damage", ["flipped byte", "truncated"])
def test_damaged_blob_is_a_miss_and_a_warning(
    damage: str,
    source: Path,
    tmp_path: Path,
    seeded: Path,
    remote_url: str,
    s3_env: dict[str, str],
) -> None:
    sha = _record(remote_url, s3_env, _f_key(seeded))["blobs"]["object"]
    data = bytearray(_get(remote_url, s3_env, f"cas/{sha}"))
    if damage == "flipped byte":
        data[len(data) // 2] ^= 0x01
    else:
        del data[len(data) // 2 :]
    _put(remote_url, s3_env, f"cas/{sha}", bytes(data))
    text = _machine_b(source, tmp_path, remote_url, seeded)
    assert f"cas/{sha[:16]}… is corrupt or truncated" in text


def test_missing_blob_is_a_miss_a_warning_and_is_stored_again(
    source: Path, tmp_path: Path, seeded: Path, remote_url: str, s3_env: dict[str, str]
) -> None:
    sha = _record(remote_url, s3_env, _f_key(seeded))["blobs"]["wrapper"]
    blob = _get(remote_url, s3_env, f"cas/{sha}")
    _delete(remote_url, s3_env, f"cas/{sha}")
    text = _machine_b(source, tmp_path, remote_url, seeded)
    assert f"cas/{sha[:16]}… is missing" in text
    assert _get(remote_url, s3_env, f"cas/{sha}") == blob  # machine B healed it


@pytest.mark.parametrize(
    "fault", ["other toolchain", "garbage", "other key", "blobs of another key"]
)
def test_bad_record_is_a_miss_and_a_warning(
    fault: str,
    source: Path,
    tmp_path: Path,
    seeded: Path,
    remote_url: str,
    s3_env: dict[str, str],
) -> None:
    key = _f_key(seeded)
    record = _record(remote_url, s3_env, key)
    if fault == "other toolchain":
        record["toolchain"] = {**record["toolchain"], "gradc": "0.0.0-elsewhere"}
        data = msgpack.packb(record)
        expected = "was written by another toolchain"
    elif fault == "garbage":
        data = b"\x93not a record"
        expected = "is unreadable"
    elif fault == "other key":
        g_key = read_manifest(seeded).entry("g").key
        data = _get(remote_url, s3_env, f"ac/{g_key}")
        expected = "is unreadable (it is the record of key"
    else:  # a well-formed record of f's key naming g's (intact) blobs
        g_key = read_manifest(seeded).entry("g").key
        blobs = _record(remote_url, s3_env, g_key)["blobs"]
        data = encode_record(key, record["toolchain"], blobs)
        expected = "names blobs of another key: its object is the entry gradc_g_"
    _put(remote_url, s3_env, f"ac/{key}", data)
    text = _machine_b(source, tmp_path, remote_url, seeded)
    assert f"ac/{key[:16]}… {expected}" in text
    assert text.count("gradc: warning") == 1, text


def test_blobs_must_belong_to_their_key(machine_a: tuple[Any, Path]) -> None:
    """Each check of ``foreign_blobs`` on the blobs of a real build: f's own blobs and
    the runtime's are accepted; g's object, wrapper or LLVM text under f's key, blobs
    beside the runtime object, and bytes that are no ELF object are not."""
    result = machine_a[0]
    f, g = (next(e for e in result.entries if e.name == n) for n in ("f", "g"))

    def blobs(e: Any) -> dict[str, bytes]:
        return {"object": e.object_code, "wrapper": e.wrapper_object, "llvm": e.llvm_text.encode()}

    assert foreign_blobs(f.key, blobs(f)) is None
    assert "not one of key" in str(foreign_blobs(f.key, blobs(g)))
    assert "wrapper object does not define gradcpy_f_" in str(
        foreign_blobs(f.key, {**blobs(f), "wrapper": g.wrapper_object})
    )
    assert "LLVM text does not define gradc_f_" in str(
        foreign_blobs(f.key, {**blobs(f), "llvm": g.llvm_text.encode()})
    )
    runtime = {"object": result.runtime_object}
    assert foreign_blobs(result.runtime_key, runtime) is None
    assert "comes with llvm blobs" in str(
        foreign_blobs(result.runtime_key, {**runtime, "llvm": b"x"})
    )
    assert "not an ELF relocatable object" in str(foreign_blobs(f.key, {"object": b"junk"}))


def test_record_that_differs_from_ours_is_reported_as_non_reproducible(
    source: Path, tmp_path: Path, remote_url: str, s3_env: dict[str, str]
) -> None:
    out = tmp_path / "A" / "m.gradc"
    r = build(source, out)  # a local build, before the remote cache was set up
    assert r.exit_code == 0, r.output
    key = _f_key(out)
    other = {"object": "0" * 64}  # another build's object for the same key
    _put(remote_url, s3_env, f"ac/{key}", encode_record(key, host_toolchain(), other))
    text = _build(source, out, remote_url)  # f is a local hit: publishing compares records
    assert f"ac/{key[:16]}… differs from this build's record for the same key" in text
    assert _record(remote_url, s3_env, key)["blobs"] == other  # the stored record is kept
    _check_artifact(out, source)


def test_eight_concurrent_publishers_of_one_module(
    source: Path,
    remote_url: str,
    s3_env: dict[str, str],
    tmp_path: Path,
    machine_a: tuple[Any, Path],
) -> None:
    result = machine_a[0]
    start = threading.Barrier(8)
    problems: list[str] = []

    # eight publishers racing at the server; they share one S3 client (its start-up costs
    # ~1 s of CPU each here, and the race is at the server, not in the client)
    shared = open_filesystem(RemoteOptions(remote_url))

    def publish() -> None:
        cache = RemoteCache(
            RemoteOptions(remote_url), host_toolchain(), warn=problems.append, filesystem=shared
        )
        start.wait()
        cache.publish_build(result)

    threads = [threading.Thread(target=publish) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert problems == []
    for key, entry in build_entries(result).items():  # one record each, ours, all blobs
        found = RemoteCache(
            RemoteOptions(remote_url), host_toolchain(), warn=problems.append, filesystem=shared
        )
        assert found.lookup(key) == entry
    assert problems == []
    out = tmp_path / "B" / "m.gradc"
    text = _build(source, out, remote_url)
    assert "4 objects downloaded" in text and "warning" not in text
    _check_artifact(out, source)


def test_server_stopped_mid_build(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, machine_a: tuple[Any, Path]
) -> None:
    server = S3Server()
    server.start()
    try:
        for k, v in server.env().items():
            monkeypatch.setenv(k, v)
        boto3.client("s3", endpoint_url=server.endpoint).create_bucket(Bucket="mid")
        url = "s3://mid/gradc"
        result, seeded = machine_a
        _publish(result, url)
        lookup = RemoteCache.lookup
        calls: list[str] = []

        def stop_after_first(self: RemoteCache, key: str) -> Any:
            found = lookup(self, key)
            calls.append(key)
            if len(calls) == 1:
                server.stop()
            return found

        monkeypatch.setattr(RemoteCache, "lookup", stop_after_first)
        out = tmp_path / "B" / "m.gradc"
        text = _build(source, out, url)
    finally:
        server.stop()
    assert "1 object downloaded" in text and "(remote cache unreachable)" in text
    assert text.count("is unreachable") == 1, text
    assert files(out) == files(seeded)
    _check_artifact(out, source)


def test_unreachable_store_builds_locally_and_says_so_once(
    source: Path, tmp_path: Path, s3_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from .conftest import free_port

    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    out = tmp_path / "m.gradc"
    text = _build(source, out, "s3://nowhere/gradc")
    assert text.count("gradc: warning") == 1 and "is unreachable" in text, text
    _check_artifact(out, source)


def test_a_silent_server_times_out_within_the_bound(
    machine_a: tuple[Any, Path], s3_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that accepts connections and never answers: each request gives up after
    ``timeout_s``, ``attempts`` times, then the store is left alone (one warning)."""
    import socket
    import time

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{silent.getsockname()[1]}")
        found: list[str] = []
        options = RemoteOptions("s3://silent/gradc", timeout_s=0.5, attempts=2)
        cache = RemoteCache(options, host_toolchain(), warn=found.append)
        start = time.perf_counter()
        for key in build_entries(machine_a[0]):
            assert cache.lookup(key) is None
        cache.publish_build(machine_a[0])
        elapsed = time.perf_counter() - start
    assert len(found) == 1 and "is unreachable" in found[0], found
    assert not cache.available
    assert elapsed < 2 * 2 * 0.5 + 3.0  # two attempts of two timeouts (connect, read) at most


def test_runtime_mode_downloads_instead_of_compiling(
    source: Path, tmp_path: Path, seeded: Path, remote_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-process twin of the runtime-mode part of the slow test: with everything in the
    bucket, runtime mode's build lowers and emits nothing (both refuse here) and writes
    machine A's artifact."""
    import gradc.compiler.backend as backend
    from gradc.runtime_mode import _compile

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled although the remote cache has everything")

    monkeypatch.setattr(backend, "_lower_export", refuse)
    monkeypatch.setattr(backend, "_runtime_text", refuse)
    out = tmp_path / "cache" / "m.gradc"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would mean something was not used
        _compile(source, out, allow_compile=True, remote_url=remote_url)
    assert files(out) == files(seeded)
    _check_artifact(out, source)


def test_build_all_workers_share_the_cache(
    tmp_path: Path, remote_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gradc build-all --remote-cache``: a second build of the same modules elsewhere
    downloads every object (nothing lowered or emitted) and writes the same bytes, here
    and with ``gradc build --executor local:1``."""
    import gradc.compiler.backend as backend

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for k in range(2):
        (pkg / f"m{k}.py").write_text(MODULE.replace("SCALE = 2.0", f"SCALE = {k}.5"))
    runner = CliRunner()
    first = runner.invoke(
        cli,
        ["build-all", str(pkg), "-o", str(tmp_path / "A")],
        env={"GRADC_REMOTE_CACHE": remote_url},
    )
    assert first.exit_code == 0, first.output
    # the modules differ in f only: m1 already downloads g, total and the runtime from m0
    assert "3 objects downloaded" in first.output

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled although the remote cache has everything")

    monkeypatch.setattr(backend, "_lower_export", refuse)
    monkeypatch.setattr(backend, "_runtime_text", refuse)
    second = runner.invoke(
        cli, ["build-all", str(pkg), "-o", str(tmp_path / "B"), "--remote-cache", remote_url]
    )
    assert second.exit_code == 0, second.output
    assert second.output.count("4 objects downloaded") == 2, second.output
    assert "warning" not in second.output
    assert files(tmp_path / "B") == files(tmp_path / "A")
    # the same on a Dask cluster: the front-end tasks download, no emit task is made
    pytest.importorskip("distributed", reason="needs dask.distributed (pip install -e '.[test]')")
    third = runner.invoke(
        cli,
        ["build", str(pkg), "-o", str(tmp_path / "C"), "--executor", "local:1"],
        env={"GRADC_REMOTE_CACHE": remote_url},
    )
    assert third.exit_code == 0, third.output
    assert "0 objects compiled, 8 downloaded" in third.output, third.output
    assert "warning" not in third.output
    assert files(tmp_path / "C") == files(tmp_path / "A")


# ------------------------------------------------------------------ unwritable stores


@pytest.mark.parametrize("url", ["s3://no-such-bucket-{id}/gc", "s3://"])
def test_a_store_that_cannot_be_written_is_one_warning_and_the_build_succeeds(
    source: Path, tmp_path: Path, s3_env: dict[str, str], url: str
) -> None:
    """A bucket that does not exist (or no bucket at all) is not a failed build: the
    artifact is built locally and written, and the store is warned about once."""
    import uuid

    out = tmp_path / "m.gradc"
    text = _build(source, out, url.format(id=uuid.uuid4().hex[:8]))
    assert text.count("gradc: warning") == 1, text
    assert "cannot write" in text or "names no bucket" in text, text
    assert "internal compiler error" not in text
    _check_artifact(out, source)


def test_runtime_mode_with_a_bucket_that_does_not_exist_compiles_locally(
    source: Path, tmp_path: Path, s3_env: dict[str, str]
) -> None:
    from gradc.runtime_mode import _compile

    out = tmp_path / "cache" / "m.gradc"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _compile(source, out, allow_compile=True, remote_url="s3://no-such-bucket-rt/gc")
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "cannot write" in messages[0], messages
    _check_artifact(out, source)


def test_a_file_url_whose_folder_does_not_exist_is_created_and_shared(
    source: Path, tmp_path: Path, machine_a: tuple[Any, Path]
) -> None:
    """``file://`` a folder not there yet: the first build creates it and publishes; a
    second machine downloads everything and writes machine A's bytes."""
    url = f"file://{tmp_path}/shared/not/yet"
    text = _build(source, tmp_path / "A" / "m.gradc", url)
    assert "warning" not in text, text
    assert (tmp_path / "shared" / "not" / "yet" / "ac").is_dir()
    text = _build(source, tmp_path / "B" / "m.gradc", url)
    assert "4 objects downloaded" in text and "warning" not in text, text
    assert files(tmp_path / "B" / "m.gradc") == files(machine_a[1])


def test_an_unknown_protocol_is_named_as_such(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "m.gradc"
    text = _build(source, out, "foo://x/y")
    assert "the protocol foo:// is unknown to fsspec" in text, text
    assert "pip install" not in text and text.count("gradc: warning") == 1
    _check_artifact(out, source)
