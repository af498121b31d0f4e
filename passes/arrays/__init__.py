"""The ``lower-arrays`` pass: whole-array operations into loop nests of scalar IR.

:mod:`.table` holds the rules (``ARRAY_LOWERING``), :mod:`.loops` the loop-nest builder
they use, :mod:`.lower` the pass, one module per family the rules (:mod:`.elementwise`).
"""
