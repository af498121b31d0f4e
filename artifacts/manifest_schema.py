"""Validation of decoded manifest data (``Manifest.from_dict``, ``Manifest.decode``).

Every check names the file and the field (``m.gradc/manifest.msgpack: entries[0].params
...``); the schema is the one of :mod:`gradc.artifacts.manifest`.
"""

from __future__ import annotations

from gradc.artifacts.errors import ArtifactError, FormatVersionError
from gradc.artifacts.manifest_paths import FORMAT_VERSION, TEXT_EXTENSIONS, Kinds, blob_sha256

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gradc.artifacts.cuda_manifest import CudaSection

__all__ = ["manifest_from_dict"]


def manifest_from_dict(raw: object, where: str, kinds: Kinds) -> Any:
    """Validate plain data (as ``Manifest.to_dict`` returns it) read from ``where`` into
    a manifest of ``kinds``: the same checks and errors for the loader's records as for
    the dataclasses of ``gradc.artifacts.manifest``.

    Raises:
        FormatVersionError: the major format version is not ours.
        ArtifactError: a field is missing or has the wrong type (naming the field).
    """
    r = _Reader(where, kinds)
    top = r.req_map(raw, "manifest")
    found = _format_version(r, top)
    prod = r.req_map(r.get(top, "producer"), "producer")
    tgt = r.req_map(r.get(top, "target"), "target")
    entries = []
    for i, raw_entry in enumerate(r.req_list(r.get(top, "entries"), "entries")):
        entries.append(r.entry(raw_entry, f"entries[{i}]"))
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise ArtifactError(f"{where}: duplicate export names in {names}")
    clash = sorted({e.dispatch for e in entries} & set(names))
    if clash:
        raise ArtifactError(f"{where}: {clash[0]!r} names both an export and a dispatch")
    target = kinds.target(
        triple=r.req_str(tgt, "triple", "target"),
        cpu=r.req_str(tgt, "cpu", "target"),
        features=r.req_str(tgt, "features", "target"),
    )
    variants = _variants(r, top, target, entries)
    return kinds.manifest(
        producer=kinds.producer(
            gradc=r.req_str(prod, "gradc", "producer"),
            llvmlite=r.req_str(prod, "llvmlite", "producer"),
            llvm=r.req_str(prod, "llvm", "producer"),
        ),
        target=target,
        module=r.req_str(top, "module", "manifest"),
        entries=tuple(entries),
        format_version=found,
        runtime=_runtime(r, top),
        variants=variants,
        sources=r.str_map(top.get("sources", {}), "sources"),
        cuda=_cuda(top, where),
    )


def _cuda(top: dict[str, Any], where: str) -> CudaSection | None:
    """The optional ``cuda`` section (1.6); its module is imported only when there is one."""
    if "cuda" not in top:
        return None
    from gradc.artifacts.cuda_manifest import CudaSection

    return CudaSection.from_dict(top["cuda"], where)


def _format_version(r: _Reader, top: dict[str, Any]) -> tuple[int, int]:
    """The ``format_version``; FormatVersionError for another major version."""
    where = r.where
    version = r.req_list(r.get(top, "format_version"), "format_version")
    if len(version) != 2 or not all(type(v) is int for v in version):
        raise ArtifactError(f"{where}: format_version must be [major, minor]")
    found = (version[0], version[1])
    if found[0] != FORMAT_VERSION[0]:
        newer = "newer than" if found > FORMAT_VERSION else "older than"
        raise FormatVersionError(
            f"{where}: artifact format version {found[0]}.{found[1]} is {newer} the "
            f"version this gradc reads ({FORMAT_VERSION[0]}.{FORMAT_VERSION[1]}); "
            "rebuild the artifact with this gradc or use a matching gradc",
            found,
            FORMAT_VERSION,
        )
    return found


def _variants(r: _Reader, top: dict[str, Any], target: Any, entries: list[Any]) -> tuple[Any, ...]:
    """The CPU ``variants`` (element 0 is ``target``), checked against each entry's."""
    where = r.where
    variants: tuple[Any, ...] = ()
    if "variants" in top:
        raw_variants = r.req_list(top["variants"], "variants")
        variants = tuple(
            r.kinds.target(
                target.triple,
                r.req_str(r.req_map(v, f"variants[{i}]"), "cpu", f"variants[{i}]"),
                r.req_str(v, "features", f"variants[{i}]"),
            )
            for i, v in enumerate(raw_variants)
        )
        if not variants or variants[0] != target:
            raise ArtifactError(f"{where}: variants[0] must be the target {target}")
    for e in entries:
        if len(e.variants) != len(variants):
            raise ArtifactError(
                f"{where}: export {e.name!r} has {len(e.variants)} CPU variants, "
                f"the artifact {len(variants)}"
            )
        if e.variants and e.variants[0] != r.kinds.entry_variant(
            e.symbol, e.object, e.sha256, e.key, e.wrapper
        ):
            raise ArtifactError(f"{where}: export {e.name!r}: variants[0] is not the entry")
    return variants


def _runtime(r: _Reader, top: dict[str, Any]) -> Any:
    """The optional ``runtime`` map."""
    if "runtime" not in top:
        return None
    rt = r.req_map(top["runtime"], "runtime")
    obj, sha = r.blob(rt, "runtime")
    key = rt.get("key", "")
    if not isinstance(key, str):
        raise r.fail("runtime.key must be a string")
    return r.kinds.runtime(r.req_str(rt, "abi", "runtime"), obj, sha, key)


class _Reader:
    """Schema checks that name the file and the field."""

    def __init__(self, where: str, kinds: Kinds) -> None:
        self.where = where
        self.kinds = kinds

    def fail(self, what: str) -> ArtifactError:
        return ArtifactError(f"{self.where}: {what}")

    def req_map(self, value: object, name: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{name} must be a map, got {type(value).__name__}")
        return value

    def req_list(self, value: object, name: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(f"{name} must be a list, got {type(value).__name__}")
        return value

    def get(self, m: dict[str, Any], key: str, parent: str = "manifest") -> Any:
        if key not in m:
            raise self.fail(f"{parent} lacks field {key!r}")
        return m[key]

    def req_str(self, m: dict[str, Any], key: str, parent: str) -> str:
        value = self.get(m, key, parent)
        if not isinstance(value, str):
            raise self.fail(f"{parent}.{key} must be a string, got {type(value).__name__}")
        return value

    def str_map(self, value: object, name: str) -> dict[str, str]:
        m = self.req_map(value, name)
        for k, v in m.items():
            if not isinstance(v, str):
                raise self.fail(f"{name}[{k!r}] must be a string, got {type(v).__name__}")
        return dict(m)

    def blob(self, m: dict[str, Any], name: str) -> tuple[str, str]:
        """The ``object`` path and ``sha256`` of map ``m``, checked against each other."""
        obj = self.req_str(m, "object", name)
        sha = self.req_str(m, "sha256", name)
        if blob_sha256(obj) != sha or not obj.endswith(".o"):
            raise self.fail(f"{name}.object {obj!r} does not match its sha256 {sha!r}")
        return obj, sha

    def defaults(
        self, sig: dict[str, Any], names: list[str], name: str
    ) -> tuple[tuple[str, int | float | bool], ...]:
        """``signature.defaults`` (1.5): [[param, value], ...] naming trailing parameters
        in order, each value an int, float or bool."""
        raw = self.req_list(sig.get("defaults", []), f"{name}.signature.defaults")
        if len(raw) > len(names):
            raise self.fail(f"{name}.signature.defaults has more entries than parameters")
        trailing = names[len(names) - len(raw) :] if raw else []
        out: list[tuple[str, int | float | bool]] = []
        for j, (d, param) in enumerate(zip(raw, trailing, strict=True)):
            ok = isinstance(d, list) and len(d) == 2 and d[0] == param
            if not ok or type(d[1]) not in (int, float, bool):
                raise self.fail(
                    f"{name}.signature.defaults[{j}] must be [{param!r}, int | float | bool]"
                )
            out.append((param, d[1]))
        return tuple(out)

    def entry(self, raw: object, name: str) -> Any:
        m = self.req_map(raw, name)
        sig = self.req_map(self.get(m, "signature", name), f"{name}.signature")
        params = []
        writes = list(self.req_list(sig.get("writes", []), f"{name}.signature.writes"))
        for j, p in enumerate(self.req_list(self.get(sig, "params", name), f"{name}.params")):
            # [name, type] (1.0, 1.1); [name, type, writes] is read too.
            ok = isinstance(p, list) and len(p) in (2, 3) and all(isinstance(s, str) for s in p[:2])
            if not ok or (len(p) == 3 and not isinstance(p[2], bool)):
                raise self.fail(f"{name}.signature.params[{j}] must be [name, type]")
            params.append((p[0], p[1]))
            if len(p) == 3 and p[2] and p[0] not in writes:
                writes.append(p[0])
        names = [n for n, _ in params]
        if not all(isinstance(w, str) and w in names for w in writes):
            raise self.fail(f"{name}.signature.writes {writes!r} names no parameter")
        signature = self.kinds.entry_signature(
            tuple(params),
            self.req_str(sig, "result", f"{name}.signature"),
            tuple(n for n in names if n in writes),
            self.defaults(sig, names, name),
        )
        if "types" in sig:  # 1.4: must be the strings' structured form
            try:
                signature.abi.check_types_data(sig["types"])
            except ArtifactError as exc:
                raise self.fail(f"{name}.signature: {exc}") from None
        abi = self.get(m, "abi_version", name)
        if type(abi) is not int:
            raise self.fail(f"{name}.abi_version must be an int")
        obj, sha = self.blob(m, name)
        wrapper = self.wrapper(m, name)
        variants = []
        for j, raw_v in enumerate(self.req_list(m.get("variants", []), f"{name}.variants")):
            where = f"{name}.variants[{j}]"
            v = self.req_map(raw_v, where)
            vobj, vsha = self.blob(v, where)
            variants.append(
                self.kinds.entry_variant(
                    self.req_str(v, "symbol", where),
                    vobj,
                    vsha,
                    self.req_str(v, "key", where),
                    self.wrapper(v, where),
                )
            )
        texts = self.str_map(m.get("texts", {}), f"{name}.texts")
        for kind, path in texts.items():
            if kind not in TEXT_EXTENSIONS or not path.endswith(TEXT_EXTENSIONS[kind]):
                raise self.fail(f"{name}.texts[{kind!r}] = {path!r} is not a known text kind")
            blob_sha256(path)
        components = self.req_map(m.get("key_components", {}), f"{name}.key_components")
        for k, v in components.items():
            if not isinstance(v, str | int | float | bool | None):
                raise self.fail(f"{name}.key_components[{k!r}] must be a scalar")
        return self.kinds.entry(
            name=self.req_str(m, "name", name),
            signature=signature,
            abi_version=abi,
            symbol=self.req_str(m, "symbol", name),
            object=obj,
            sha256=sha,
            key=self.req_str(m, "key", name),
            key_components=dict(components),
            dependencies=self.str_map(m.get("dependencies", {}), f"{name}.dependencies"),
            texts=texts,
            wrapper=wrapper,
            variants=tuple(variants),
            sites=self.sites(m.get("sites", []), f"{name}.sites"),
            dispatch=self.dispatch(m, name),
        )

    def dispatch(self, m: dict[str, Any], name: str) -> str:
        """The optional ``dispatch`` name (1.7): a Python identifier."""
        value = m.get("dispatch", "")
        if not isinstance(value, str) or (value and not value.isidentifier()):
            raise self.fail(f"{name}.dispatch must be a Python name, got {value!r}")
        return value

    def wrapper(self, m: dict[str, Any], name: str) -> Any:
        """The optional ``wrapper`` map of ``m``."""
        if "wrapper" not in m:
            return None
        w = self.req_map(m["wrapper"], f"{name}.wrapper")
        wobj, wsha = self.blob(w, f"{name}.wrapper")
        return self.kinds.wrapper(self.req_str(w, "symbol", f"{name}.wrapper"), wobj, wsha)

    def sites(self, value: object, name: str) -> tuple[tuple[str, int, int], ...]:
        out = []
        for j, site in enumerate(self.req_list(value, name)):
            ok = isinstance(site, list) and len(site) == 3 and isinstance(site[0], str)
            if not ok or not all(type(v) is int for v in site[1:]):
                raise self.fail(f"{name}[{j}] must be [file, line, col]")
            out.append((site[0], site[1], site[2]))
        return tuple(out)
