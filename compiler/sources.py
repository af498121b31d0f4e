"""The module's source as the driver reads it, and file names as artifacts record them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from gradc._hashing import sha256

if TYPE_CHECKING:
    from gradc.compiler.frontend.module_scan import ModuleInfo
    from gradc.compiler.frontend.source import SourceFile


def read_source(
    source_path: Path, source_text: bytes | None = None, prelude: str = ""
) -> tuple[bytes, SourceFile]:
    """The module's bytes and its parsed source (see ``build_module`` for the arguments).

    The ``prelude``'s statements are placed after the module's last line, so that its
    line numbers stay its own, and moved to the front of the syntax tree, so that they
    are scanned first.

    Raises:
        OSError: the file cannot be read.
        UnicodeDecodeError: the bytes are not UTF-8.
        CompileError: the text is not valid Python.
    """
    from gradc.compiler.frontend.source import SourceFile

    data = Path(source_path).read_bytes() if source_text is None else source_text
    text = _universal_newlines(data)
    source = SourceFile.parse(text + "\n" + prelude if prelude else text, str(source_path))
    if prelude:  # the prelude's statements are the last ones: scan them first
        count = len(source.tree.body) - len(SourceFile.parse(text, "").tree.body)
        body = source.tree.body
        body[:] = body[len(body) - count :] + body[: len(body) - count]
    return data, source


def module_relative(file: str, base_dir: Path) -> str:
    """``file`` (a ``Loc.file``) relative to the main module's folder, ``/``-separated.

    Pseudo-files such as ``<unknown>`` stay as they are.
    """
    if file.startswith("<"):
        return file
    return Path(os.path.relpath(os.path.abspath(file), base_dir)).as_posix()


def source_hashes(info: ModuleInfo, base_dir: Path, read: Mapping[str, bytes]) -> dict[str, str]:
    """Module-relative name -> sha256 of the bytes, for each file the front end read.

    ``read`` holds bytes already read (path -> bytes), so the hash is of what was
    compiled; the other files (user imports, ``ModuleInfo.files``) are read again.
    """
    already = {os.path.abspath(f): data for f, data in read.items()}
    out = {}
    for f in info.files:
        path = os.path.abspath(f)
        data = already[path] if path in already else Path(path).read_bytes()
        out[module_relative(path, base_dir)] = sha256(data).hexdigest()
    return out


def _universal_newlines(data: bytes) -> str:
    """``data`` decoded as UTF-8 with ``\\r\\n`` and ``\\r`` read as ``\\n`` (as ``open`` does).

    Raises:
        UnicodeDecodeError: the bytes are not UTF-8.
    """
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
