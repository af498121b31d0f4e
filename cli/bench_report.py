"""``gradc bench``'s report: a rich table on stdout, and a bar chart of the run rows."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import click

from gradc.cli.bench_baselines import PEERS
from gradc.cli.bench_stats import Row


def format_seconds(s: float | None) -> str:
    """``0.0123`` -> ``"12.3 ms"``; None -> ``"—"``."""
    if s is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def print_report(rows: Sequence[Row], title: str, peer_notes: Mapping[str, str]) -> None:
    """The rows as a rich table on stdout, with the skipped peers under it."""
    from rich.console import Console
    from rich.table import Table

    peers = [p for p in PEERS if any(p in r.peers for r in rows)]
    table = Table(title=title)
    table.add_column("measurement")
    table.add_column("gradc", justify="right")
    table.add_column("CPython baseline", justify="right")
    table.add_column("baseline is")
    table.add_column("gradc ÷ CPython", justify="right")
    for p in peers:
        table.add_column(p, justify="right")
    table.add_column("note")
    for r in rows:
        ratio = r.ratio
        text = "—" if ratio is None else f"{ratio:.3g}×"
        style = "" if ratio is None else ("green" if ratio < 1 else "red")
        note = r.note
        if r.per_primal is not None:
            note = f"{r.per_primal:.3g}× the time of {r.derivative_of}" + (
                f"; {note}" if note else ""
            )
        table.add_row(
            r.what,
            format_seconds(r.gradc),
            format_seconds(r.baseline),
            r.baseline_what,
            f"[{style}]{text}[/{style}]" if style else text,
            *(format_seconds(r.peers.get(p)) for p in peers),
            note,
        )
    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    console.print(table)
    for name, why in peer_notes.items():
        console.print(f"{name}: skipped ({why})")


def _peer_value(name: str) -> Callable[[Row], float | None]:
    def value(r: Row) -> float | None:
        return r.peers.get(name)

    return value


def _speed_text(ratio: float) -> str:
    """gradc ÷ CPython as words: ``0.02`` -> ``"50× faster than CPython"``."""
    if ratio <= 1:
        return f"{1 / ratio:.3g}× faster than CPython"
    return f"{ratio:.3g}× slower than CPython"


def plot(rows: Sequence[Row], path: Path, title: str) -> None:
    """A horizontal bar chart of the run rows: time per call (log scale) of gradc, plain
    CPython and each peer, one group of bars per export, written to ``path`` (PNG).

    Raises:
        click.ClickException: matplotlib is not installed (``pip install 'gradc[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise click.ClickException("--plot needs matplotlib: pip install 'gradc[plot]'") from None
    runs = [r for r in rows if r.kind == "run"]
    series: list[tuple[str, Callable[[Row], float | None], str]] = [
        ("gradc", lambda r: r.gradc, "tab:blue"),
        ("CPython (plain)", lambda r: r.baseline, "tab:gray"),
    ]
    colors = {"numba": "tab:orange", "jax": "tab:green"}
    for p in PEERS:
        if any(r.peers.get(p) for r in runs):
            series.append((p, _peer_value(p), colors[p]))
    height = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.35 * len(series) * max(1, len(runs))))
    labels = []
    for i, r in enumerate(runs):
        label = r.export
        if r.derivative_of:
            label += f"\n(derivative of {r.derivative_of})"
        if r.gradc is None:
            label += "\n(failed: see the table)"
        labels.append(label)
        for j, (_, value, color) in enumerate(series):
            v = value(r)
            if v:
                y = i + (j - (len(series) - 1) / 2) * height
                ax.barh(y, v, height=height * 0.9, color=color)
                if j == 0 and r.ratio:
                    ax.text(v, y, "  " + _speed_text(r.ratio), va="center", fontsize=8)
                elif j == 0 and r.per_primal is not None:
                    text = f"  {r.per_primal:.3g}× the time of {r.derivative_of} (no CPython twin)"
                    ax.text(v, y, text, va="center", fontsize=8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(runs)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("time per call, seconds (log scale; shorter is faster)")
    ax.set_ylabel("export")
    ax.set_title(title)
    from matplotlib.patches import Patch

    handles = [Patch(color=color, label=name) for name, _, color in series]
    ax.legend(handles=handles, loc="best", fontsize=8)
    ax.grid(axis="x", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
