"""Operations only derivative code and the passes after AD make: the tape
(``tapenew``, ``tapepush``, ``tapepop``, ``tapefree``), shadow accumulation
(``arrayacc``), reference counts (``incref``, ``decref``) and decayed pointers
(``elemoffset``, ``addr``, ``ptradd``). A function holding one is derivative code; an
active value reaching one is a compile-time error (:class:`.base.Refused`), never a
derivative silently dropped.
"""

from __future__ import annotations

from gradc.compiler.ir import ops
from gradc.passes.ad.rules.base import Refused
from gradc.passes.ad.rules.registry import AD_RULES

AD_RULES.set(
    [
        ops.TapeNew,
        ops.TapePush,
        ops.TapePop,
        ops.TapeFree,
        ops.AccumulateArray,
        ops.IncRef,
        ops.DecRef,
        ops.ElementOffset,
        ops.Addr,
        ops.PointerAdd,
    ],
    Refused(),
)
