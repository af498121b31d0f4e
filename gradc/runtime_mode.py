"""Runtime mode: ``import m`` in plain Python gives m's ``@gradc.export`` functions compiled.

The decorator returns an :class:`ExportedFunction`; nothing happens at import. The first
call of any export of a module resolves the module's artifact, once per process:

1. a *fresh* artifact next to the module (``<dir>/<stem>.gradc``, then
   ``<dir>/build/<stem>.gradc``, where ``gradc build`` writes by default), else in the
   cache directory ``<cache_root>/<stem>-<sha256(absolute source path)[:16]>.gradc``;
2. else the module is compiled (``gradc.compiler.driver.build_module``, reusing objects
   of a stale artifact by key) and stored in the cache directory, atomically and under the
   store's lock (``gradc.artifacts.store.write_artifact``).

*Fresh* is decided without compiling: the manifest records ``sources`` (module-relative
file -> sha256 of its bytes, for every file the front end read), and each must hash the
same now; the artifact's gradc and LLVM versions must be this process's; an artifact in
the cache directory must also have been built with :data:`RUNTIME_OPTIONS` (one next to
the module was built by its packager, with the options the packager chose).

Module-level ``d = gradc.grad(f, ...)`` declarations resolve the same way: calling ``d``
calls the artifact's export named ``d`` (the name the declaration is bound to).

The environment is read here, at the API boundary, and nowhere below:

- ``GRADC_CACHE_DIR``: the cache root (default ``platformdirs.user_cache_dir("gradc")``);
- ``GRADC_NO_COMPILE=1``: never compile; a module without a fresh artifact raises
  ``gradc.compiler.driver.CompileForbiddenError`` at its first call;
- ``GRADC_PLAIN_PYTHON=1``: ``@gradc.export`` returns the function unchanged (plain
  Python: oracles in tests, debugging);
- ``GRADC_REMOTE_CACHE=s3://bucket/prefix`` (and ``GRADC_REMOTE_CACHE_READONLY=1``):
  a compile first downloads from this shared cache what another machine compiled, and
  publishes what it compiled itself (``gradc.artifacts.remote``, docs/remote.md).

This module imports only the standard library at import time (``import gradc`` stays
cheap); the loader is imported on first call, the compiler only when compiling.
"""

from __future__ import annotations

import hashlib
import os
import threading
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gradc.artifacts.loader.cpu import Library
    from gradc.artifacts.manifest import Manifest

#: ``CompilerOptions`` fields of a runtime-mode build (the defaults of ``gradc build``).
RUNTIME_OPTIONS: dict[str, object] = {
    "opt_level": 2,
    "cpu": "x86-64",
    "fastmath": False,
    "boundscheck": True,
}

CACHE_DIR_ENV = "GRADC_CACHE_DIR"
NO_COMPILE_ENV = "GRADC_NO_COMPILE"
PLAIN_PYTHON_ENV = "GRADC_PLAIN_PYTHON"
REMOTE_CACHE_ENV = "GRADC_REMOTE_CACHE"
REMOTE_READONLY_ENV = "GRADC_REMOTE_CACHE_READONLY"


def env_flag(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """Environment variable ``name`` is set to something other than ``""`` or ``"0"``."""
    return (os.environ if environ is None else environ).get(name, "") not in ("", "0")


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """``$GRADC_CACHE_DIR``, else ``platformdirs.user_cache_dir("gradc")``."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_DIR_ENV):
        return Path(env[CACHE_DIR_ENV])
    import platformdirs

    return Path(platformdirs.user_cache_dir("gradc"))


def cache_artifact_dir(source: Path, root: Path) -> Path:
    """``<root>/<stem>-<sha256(absolute source path)[:16]>.gradc`` for module ``source``."""
    absolute = os.path.abspath(source)
    digest = hashlib.sha256(absolute.encode("utf-8", "surrogateescape")).hexdigest()
    return root / f"{Path(absolute).stem}-{digest[:16]}.gradc"


def local_artifact_dirs(source: Path) -> list[Path]:
    """The artifact directories next to module ``source``, in the order they are tried."""
    source = Path(os.path.abspath(source))
    return [
        source.with_name(f"{source.stem}.gradc"),
        source.parent / "build" / f"{source.stem}.gradc",
    ]


def is_fresh(manifest: Manifest, source: Path, *, check_options: bool) -> bool:
    """``manifest`` was built from the current bytes of every source file it lists, by
    this gradc and LLVM (and, with ``check_options``, with :data:`RUNTIME_OPTIONS`)."""
    from gradc._version import __version__
    from gradc.artifacts.loader.cpu import llvm_version
    from gradc.artifacts.manifest import ABI_VERSION, RUNTIME_ABI

    base = Path(os.path.abspath(source)).parent
    if Path(source).name not in manifest.sources:
        return False  # an artifact written before format 1.2, or of another module
    for rel, digest in manifest.sources.items():
        try:
            data = (base / rel).read_bytes()
        except OSError:
            return False
        if hashlib.sha256(data).hexdigest() != digest:
            return False
    if manifest.producer.gradc != __version__ or manifest.producer.llvm != llvm_version():
        return False
    if manifest.runtime is not None and manifest.runtime.abi != RUNTIME_ABI:
        return False  # the loader refuses it: rebuild
    if any(e.abi_version != ABI_VERSION for e in manifest.entries):
        return False  # another calling convention: the loader would refuse it
    if check_options:
        wanted = {f"options.{k}": v for k, v in RUNTIME_OPTIONS.items()}
        for e in manifest.entries:
            if any(e.key_components.get(k) != v for k, v in wanted.items()):
                return False
    return True


class _ModuleState:
    """One module's artifact, resolved once per process (under ``lock``)."""

    def __init__(self, source: Path) -> None:
        self.source = source
        self.lock = threading.Lock()
        self.library: Library | None = None
        self.path: Path | None = None
        self.compiled = False


_modules: dict[str, _ModuleState] = {}
_modules_lock = threading.Lock()


def module_state(source: Path) -> _ModuleState:
    """The process-wide state of the module at ``source`` (an absolute path)."""
    key = os.path.abspath(source)
    with _modules_lock:
        state = _modules.get(key)
        if state is None:
            state = _modules[key] = _ModuleState(Path(key))
        return state


def resolve(state: _ModuleState) -> Library:
    """The loaded artifact of ``state``'s module: a fresh one, else compiled and stored.

    Raises:
        CompileForbiddenError: no fresh artifact and ``GRADC_NO_COMPILE=1``.
        CompileError: the module does not compile (the diagnostic names file and line).
        ArtifactError: the artifact just written cannot be loaded.
    """
    if state.library is not None:
        return state.library
    with state.lock:
        if state.library is not None:
            return state.library
        from gradc.artifacts.errors import ArtifactError
        from gradc.artifacts.loader.cpu import load
        from gradc.artifacts.store import read_manifest

        root = cache_root()
        cached = cache_artifact_dir(state.source, root)
        for candidate, check_options in [
            *((d, False) for d in local_artifact_dirs(state.source)),
            (cached, True),
        ]:
            if not (candidate / "manifest.msgpack").is_file():
                continue
            try:
                if not is_fresh(
                    read_manifest(candidate), state.source, check_options=check_options
                ):
                    continue
                library = load(candidate)
            except ArtifactError as exc:
                warnings.warn(f"gradc: not using {candidate}: {exc}", RuntimeWarning, stacklevel=4)
                continue
            state.library, state.path = library, candidate
            return library
        _compile(
            state.source,
            cached,
            allow_compile=not env_flag(NO_COMPILE_ENV),
            remote_url=os.environ.get(REMOTE_CACHE_ENV, ""),
            remote_readonly=env_flag(REMOTE_READONLY_ENV),
        )
        state.library, state.path, state.compiled = load(cached), cached, True
        return state.library


def _compile(
    source: Path,
    out: Path,
    *,
    allow_compile: bool,
    remote_url: str = "",
    remote_readonly: bool = False,
) -> None:
    """Build ``source`` into ``out`` with :data:`RUNTIME_OPTIONS`, reusing ``out``'s objects
    and, with ``remote_url``, downloading from (and publishing to) that remote cache."""
    from gradc.artifacts.store import previous_build, write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    options = CompilerOptions(**RUNTIME_OPTIONS)  # type: ignore[arg-type]
    previous = previous_build(out) if allow_compile else None
    for problem in previous.problems if previous is not None else ():
        warnings.warn(f"gradc: {problem}; rebuilding it", RuntimeWarning, stacklevel=5)
    cache = previous.reusable if previous is not None else None
    remote = _remote_cache(remote_url, remote_readonly) if allow_compile else None
    if remote is not None:
        cache = remote.layered(cache or {})
    result = build_module(source, options, cache=cache, allow_compile=allow_compile)
    write_artifact(out, result)
    if remote is not None:
        remote.publish_build(result)


def _remote_cache(url: str, readonly: bool) -> Any:
    """A ``gradc.artifacts.remote.RemoteCache`` for ``url`` (None without one); problems
    are ``RuntimeWarning``s, never errors: the module then compiles locally."""
    if not url:
        return None
    from gradc.artifacts.remote import RemoteCache, RemoteOptions, host_toolchain, open_filesystem

    def warn(message: str) -> None:
        warnings.warn(f"gradc: {message}", RuntimeWarning, stacklevel=2)

    try:
        options = RemoteOptions(url, readonly=readonly)
        filesystem = open_filesystem(options)
    except (ImportError, ValueError) as exc:
        warn(f"remote cache {url} not used: {exc}")
        return None
    return RemoteCache(options, host_toolchain(), warn=warn, filesystem=filesystem)


class ExportedFunction:
    """What ``@gradc.export`` returns in plain Python: the compiled export, on first call.

    Calling it calls the compiled function of the module's artifact (see the module
    docstring for how it is found or built); the first call may compile. Signatures,
    conversions and errors are the loader's (``gradc.load``).

    Attributes:
        py_func: the plain Python function (Numba's name), e.g. as an oracle.
        source: absolute path of the module file that defines it.
    """

    __slots__ = ("__dict__", "_compiled", "_state", "py_func", "source")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.py_func = fn
        self.source = Path(os.path.abspath(fn.__code__.co_filename))
        self._state = module_state(self.source)
        self._compiled: Callable[..., Any] | None = None
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            self.__dict__[attr] = getattr(fn, attr, None)
        self.__dict__["__wrapped__"] = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self.compiled()
        return compiled(*args, **kwargs)

    def compiled(self) -> Callable[..., Any]:
        """The compiled function (resolving the module's artifact on first use)."""
        if self._compiled is None:
            self._compiled = getattr(resolve(self._state), self.py_func.__name__)
        return self._compiled

    @property
    def artifact(self) -> Path | None:
        """The artifact directory in use, None before the first call."""
        return self._state.path

    def __repr__(self) -> str:
        return f"<gradc.export {self.py_func.__qualname__} of {self.source}>"


def resolve_derivative(declaration: Any, fn: ExportedFunction) -> Callable[..., Any]:
    """The compiled export of a module-level derivative ``declaration`` of ``fn``: the
    artifact's export named as the global that ``declaration`` is bound to.

    Raises:
        NameError: ``declaration`` is not bound to a global of ``fn``'s module.
    """
    names = [k for k, v in fn.py_func.__globals__.items() if v is declaration]
    if not names:
        raise NameError(
            f"{declaration!r} is not assigned to a module-level name of {fn.source.name}; "
            "declare derivatives at module level (d_f = gradc.grad(f, ...))"
        )
    compiled: Callable[..., Any] = getattr(resolve(fn._state), names[0])
    return compiled
