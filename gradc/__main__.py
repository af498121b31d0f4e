"""``python -m gradc`` and the ``gradc`` console script (:func:`run`)."""

import gc


def run() -> None:
    """Import the command line with the cyclic garbage collector off, then ``gc.freeze``
    what the imports made (the modules, classes and functions live as long as the
    process): the collector's passes during the imports, and the later ones over their
    objects, scanned them all for nothing (~9 M of ~720 M instructions of ``gradc build``
    of a scalar module, issue 13; compiler/gc_pause.py says why builds pause it too).
    Then :func:`gradc.cli.main.main`."""
    enabled = gc.isenabled()
    gc.disable()
    from gradc.cli.main import main

    gc.freeze()
    if enabled:
        gc.enable()
    main()


if __name__ == "__main__":
    run()
