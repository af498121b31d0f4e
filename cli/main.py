"""The ``gradc`` command line (being written)."""


def main() -> None:
    """Entry point of the ``gradc`` console script."""
    raise SystemExit("gradc: command line not written yet")
