"""``gradc build --remote-cache``: the command line's side of ``gradc.artifacts.remote``.

The URL and the read-only flag come from the options (or ``GRADC_REMOTE_CACHE`` and
``GRADC_REMOTE_CACHE_READONLY``, which click reads here, in ``cli/``); warnings are
printed as ``gradc: warning: ...`` on stderr.
"""

from __future__ import annotations

import click

from gradc.artifacts.remote import RemoteCache, RemoteOptions, host_toolchain

REMOTE_CACHE_ENV = "GRADC_REMOTE_CACHE"
REMOTE_READONLY_ENV = "GRADC_REMOTE_CACHE_READONLY"


def _warn(message: str) -> None:
    click.echo(f"gradc: warning: {message}", err=True)


def open_remote(url: str | None, readonly: bool) -> RemoteCache | None:
    """The remote cache of ``--remote-cache URL``; None when no URL is given, or (with a
    warning: the build goes on locally) when fsspec or the URL's protocol package is not
    installed.

    Raises:
        click.BadParameter: the URL has no scheme.
    """
    if not url:
        return None
    try:
        options = RemoteOptions(url, readonly=readonly)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--remote-cache'") from None
    try:
        from gradc.artifacts.remote import open_filesystem

        filesystem = open_filesystem(options)
    except ImportError as exc:
        _warn(f"remote cache {url} not used: {exc} (pip install 'gradc[remote]')")
        return None
    except ValueError as exc:  # an unknown protocol, no bucket
        _warn(f"remote cache {url} not used: {exc}")
        return None
    return RemoteCache(options, host_toolchain(), warn=_warn, filesystem=filesystem)


def summary(remote: RemoteCache) -> str:
    """``, 4 objects downloaded, 1 published`` for the build's summary line (objects:
    each export's CPU variants and the runtime, so more than the exports)."""
    hits, published = len(remote.stats.hits), len(remote.stats.published)
    text = f", {hits} object{'s' * (hits != 1)} downloaded"
    if published:
        text += f", {published} published"
    if not remote.available:
        text += " (remote cache unreachable)"
    return text
