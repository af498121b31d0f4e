"""``python -m gradc`` and the ``gradc`` console script (:func:`run`)."""


def run() -> None:
    """The ``gradc`` process: for ``gradc build``, a short process, the cyclic garbage
    collector off from here to its exit (``gradc.compiler.gc_pause.
    collector_off_for_process``: its passes over the objects the imports made cost ~8 % of
    the instructions of ``gradc build`` of a scalar module, issue 13), and the methods
    :mod:`gradc._dataclass` compiles kept in the cache between processes
    (:mod:`gradc._method_cache`); the other commands (``bench`` runs for minutes) keep
    the collector. Then :func:`gradc.cli.main.main`."""
    import sys

    if sys.argv[1:2] == ["build"]:
        from gradc._method_cache import keep_in
        from gradc.compiler.codegen.runtime_cache import runtime_cache_dir
        from gradc.compiler.gc_pause import collector_off_for_process

        collector_off_for_process()
        keep_in(runtime_cache_dir())  # dataclasses' compiled methods, as bytecode caches
    from gradc.cli.main import main

    main()


if __name__ == "__main__":
    run()
