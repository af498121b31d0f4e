"""``gradc build --explain``: why each entry was reused or rebuilt.

One line per entry of the new build, then one per entry the build removed::

    hit   poly
    remote hit  norm: key 3f2a9c01b7de…
    miss  area: source of helper changed
    miss  norm: options.opt_level 2 -> 3
    miss  d_f: new entry
    gone  old_name: removed entry

The reasons compare the new entry's key components and dependency hashes (Merkle hashes
of every IR function it reaches, ``gradc.compiler.keys.merkle_hashes``) with the entry
of the same name in the artifact that was there before the build.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from typing import Any, Protocol

from gradc.artifacts.manifest import Entry, Manifest


class _NewEntry(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def key_components(self) -> Mapping[str, Any]: ...
    @property
    def dependencies(self) -> Mapping[str, str]: ...
    @property
    def reused(self) -> bool: ...


def explain(
    previous: Manifest | None,
    entries: Iterable[_NewEntry],
    callees: Mapping[str, Sequence[str]],
    remote_hits: Container[str] = (),
) -> list[str]:
    """The ``--explain`` lines (see the module docstring).

    Args:
        previous: the manifest that was in the output directory before, or None.
        entries: the new build's entries (``gradc.compiler.driver.CompiledEntry``).
        callees: IR function name -> functions it calls directly, in the new build.
        remote_hits: cache keys downloaded from the remote cache (``--remote-cache``).
    """
    old = {e.name: e for e in previous.entries} if previous is not None else {}
    lines = []
    names = set()
    for e in entries:
        names.add(e.name)
        if e.reused and e.key in remote_hits:
            lines.append(f"remote hit  {e.name}: key {e.key[:12]}…")
        elif e.reused:
            lines.append(f"hit   {e.name}")
        else:
            lines.append(f"miss  {e.name}: {_why(old.get(e.name), e, callees)}")
    for name in old:
        if name not in names:
            lines.append(f"gone  {name}: removed entry")
    return lines


def _why(old: Entry | None, new: _NewEntry, callees: Mapping[str, Sequence[str]]) -> str:
    if old is None:
        return "new entry"
    if old.key == new.key:
        return "the stored object is missing or damaged"
    reasons = []
    for field in sorted(set(old.key_components) | set(new.key_components)):
        before = old.key_components.get(field)
        after = new.key_components.get(field)
        if before == after:
            continue
        if field == "ir":
            reasons.append(_source_change(old.dependencies, new.dependencies, callees))
        elif before is None:
            reasons.append(f"{field} added")
        elif after is None:
            reasons.append(f"{field} removed")
        else:
            reasons.append(f"{field} {_short(before)} -> {_short(after)}")
    return "; ".join(reasons) or "key format changed"


def _source_change(
    before: Mapping[str, str], after: Mapping[str, str], callees: Mapping[str, Sequence[str]]
) -> str:
    """Which functions' source changed: those whose hash changed but not only through a
    changed callee, and functions newly reached or no longer reached."""
    changed = {n for n in after if n in before and before[n] != after[n]}
    roots = sorted(n for n in changed if not any(c in changed for c in callees.get(n, ())))
    if changed and not roots:  # mutual recursion: every member changed together
        roots = sorted(changed)
    parts = []
    if roots:
        parts.append(f"source of {', '.join(roots)} changed")
    added = sorted(set(after) - set(before))
    if added:
        parts.append(f"now calls {', '.join(added)}")
    removed = sorted(set(before) - set(after))
    if removed:
        parts.append(f"no longer calls {', '.join(removed)}")
    return "; ".join(parts) or "IR changed"


def _short(value: object) -> str:
    """A component value for humans: hashes shortened to 12 hex digits."""
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value[:12]
    return repr(value)
