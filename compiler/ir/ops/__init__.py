"""The IR's operations: one small final dataclass each, grouped by family.

Every operation is a ``@final`` slotted dataclass that declares its operands, successors,
phi edges, attributes and flags (``OPERANDS``, ``SUCCESSORS``, ``EDGES``, ``ATTRS``,
``FLAGS``; an attribute with a fixed set of values is a ``StrEnum``), its traits
(``IS_TERMINATOR``, ``MAY_RAISE``, ``HAS_SIDE_EFFECTS``) and, beside them, its
verification rule; the printer, parser and verifier are derived from these declarations
(:mod:`gradc.compiler.ir.printer`). The families:

- :mod:`.scalar`: constants, casts, tuples, arithmetic, comparisons;
- :mod:`.mathcall`: ``math`` module functions;
- :mod:`.control`: phis, calls, branches, returns, raises;
- :mod:`.arrays`: array shapes, element addresses, loads and stores, allocation,
  reference counts;
- :mod:`.reductions`: NumPy's reductions (``np.sum``, ``a.max(axis=0)``, ``np.cumsum``);
- :mod:`.tape`: the reverse-mode tape;
- :mod:`.elementwise`: NumPy ufuncs on whole arrays (lowered to loops by ``lower-arrays``);
- :mod:`.gpu`: the atomics and barrier of ``@gradc.kernel`` bodies;
- :mod:`.frontend`: the untyped front end's polymorphic operations;
- :mod:`.views`: views (basic indexing, transposes, contiguous reshapes);
- :mod:`.indexing`: indexing that copies (integer arrays, masks) and ``a.flat[i]``;
- :mod:`.reorder`: ``np.diag``, ``np.tril``/``np.triu``, ``np.roll``, ``np.sort``;
- :mod:`.solve`: ``np.linalg.inv``, ``np.linalg.solve``, ``np.linalg.det``;
- :mod:`.batched`: ``a @ b`` of operands of more than 2 axes.

Printed form (see :mod:`gradc.compiler.ir.printer`)::

    %2 = add %0, %1 : f64
    %3 = cmp lt %2, %c : i1
    condbr %3, ^then, ^else
"""

from __future__ import annotations

from gradc.compiler.ir.core import Instruction
from gradc.compiler.ir.ops.arrays import (
    AccumulateArray,
    Addr,
    ArrayAddress,
    ArrayDim,
    CopyArray,
    DecRef,
    ElementAddr,
    ElementOffset,
    IncRef,
    Load,
    NewArray,
    PointerAdd,
    Store,
)
from gradc.compiler.ir.ops.batched import BatchMatmul
from gradc.compiler.ir.ops.construct import (
    Arange,
    ArrayLiteral,
    AsType,
    Concatenate,
    Eye,
    JoinKind,
    Linspace,
)
from gradc.compiler.ir.ops.control import (
    EXCEPTION_KINDS,
    FORMAT_FIELDS,
    Branch,
    Call,
    ExceptionKind,
    Jump,
    Phi,
    Raise,
    RaiseFormat,
    Return,
)
from gradc.compiler.ir.ops.elementwise import Elementwise, ElementwiseInto, InPlace
from gradc.compiler.ir.ops.frontend import (
    Allocate,
    AllocKind,
    ArrayAttr,
    ArrayProperty,
    GetItem,
    Len,
    NumpyCall,
    SetItem,
)
from gradc.compiler.ir.ops.gpu import (
    SEQUENTIAL_BARRIER,
    AtomicAdd,
    AtomicAddItem,
    SharedArray,
    SyncThreads,
)
from gradc.compiler.ir.ops.indexing import (
    Compress,
    FlatGet,
    FlatIndex,
    Gather,
    IndexAssign,
    MaskAssign,
    Take,
)
from gradc.compiler.ir.ops.linalg import Contract, ContractKind, Outer, Trace
from gradc.compiler.ir.ops.mathcall import (
    IEEE_MATH,
    MATH_FUNCTIONS,
    MathCall,
    MathCheck,
    MathFn,
    MathName,
)
from gradc.compiler.ir.ops.reductions import (
    CumKind,
    Cumulate,
    NumpyReduce,
    Reduce,
    ReduceKind,
)
from gradc.compiler.ir.ops.reorder import Diag, Roll, Sort, SortKind, Triangle
from gradc.compiler.ir.ops.scalar import (
    CMP_PREDICATES,
    Abs,
    Add,
    BinaryOp,
    BitAnd,
    BitOr,
    BitXor,
    Cast,
    Cmp,
    CmpPred,
    Const,
    Div,
    DivKind,
    FDiv,
    FloorDiv,
    Invert,
    LShift,
    MakeTuple,
    Max,
    Min,
    Mod,
    Mul,
    Neg,
    Not,
    Poison,
    Pow,
    RShift,
    Select,
    Sub,
    TupleGet,
    UnaryOp,
)
from gradc.compiler.ir.ops.solve import LinalgSolve, SolveKind
from gradc.compiler.ir.ops.tape import TapeFree, TapeNew, TapePop, TapePush
from gradc.compiler.ir.ops.views import AssignInto, BasicIndex, Reshape, SliceView, Transpose

#: Every concrete operation class by its printed name (used by the parser). The abstract
#: bases :class:`BinaryOp` and :class:`UnaryOp` are not operations.
OPERATIONS: dict[str, type[Instruction]] = {
    cls.OPNAME: cls
    for cls in (
        Const,
        Cast,
        Select,
        Phi,
        MakeTuple,
        TupleGet,
        Add,
        Sub,
        Mul,
        Div,
        FDiv,
        FloorDiv,
        Mod,
        Pow,
        Min,
        Max,
        BitAnd,
        BitOr,
        BitXor,
        LShift,
        RShift,
        Neg,
        Abs,
        Invert,
        Not,
        Cmp,
        MathCall,
        Call,
        Jump,
        Branch,
        Return,
        Raise,
        RaiseFormat,
        ArrayDim,
        ElementAddr,
        Load,
        Store,
        NewArray,
        CopyArray,
        AccumulateArray,
        IncRef,
        DecRef,
        ElementOffset,
        Addr,
        PointerAdd,
        ArrayAddress,
        Poison,
        TapeNew,
        TapePush,
        TapePop,
        TapeFree,
        GetItem,
        SetItem,
        Len,
        ArrayAttr,
        Allocate,
        NumpyCall,
        # linear algebra (linalg.py)
        Contract,
        Outer,
        Trace,
        # elements copied to new places (reorder.py)
        Diag,
        Triangle,
        Roll,
        Sort,
        LinalgSolve,
        BatchMatmul,
        # construction and conversion (construct.py)
        Arange,
        Linspace,
        Eye,
        ArrayLiteral,
        Concatenate,
        AsType,
        # whole-array operations (lowered to loops by lower-arrays)
        Elementwise,
        ElementwiseInto,
        InPlace,
        # reductions
        Reduce,
        Cumulate,
        NumpyReduce,
        # views
        SliceView,
        Transpose,
        Reshape,
        BasicIndex,
        AssignInto,
        # indexing that copies
        Take,
        Gather,
        Compress,
        MaskAssign,
        IndexAssign,
        FlatIndex,
        FlatGet,
        AtomicAddItem,
        AtomicAdd,
        SyncThreads,
        SharedArray,
    )
}

#: Operations only the untyped front end emits; inference replaces every one of them.
FRONT_END_OPERATIONS = (
    GetItem,
    SetItem,
    Len,
    ArrayAttr,
    Allocate,
    NumpyCall,
    InPlace,
    NumpyReduce,
    BasicIndex,
    FlatGet,
    AtomicAddItem,
)

__all__ = [
    "CMP_PREDICATES",
    "EXCEPTION_KINDS",
    "FORMAT_FIELDS",
    "FRONT_END_OPERATIONS",
    "IEEE_MATH",
    "MATH_FUNCTIONS",
    "OPERATIONS",
    "SEQUENTIAL_BARRIER",
    "Abs",
    "AccumulateArray",
    "Add",
    "Addr",
    "AllocKind",
    "Allocate",
    "Arange",
    "ArrayAddress",
    "ArrayAttr",
    "ArrayDim",
    "ArrayLiteral",
    "ArrayProperty",
    "AsType",
    "AssignInto",
    "AtomicAdd",
    "AtomicAddItem",
    "BasicIndex",
    "BatchMatmul",
    "BinaryOp",
    "BitAnd",
    "BitOr",
    "BitXor",
    "Branch",
    "Call",
    "Cast",
    "Cmp",
    "CmpPred",
    "Compress",
    "Concatenate",
    "Const",
    "Contract",
    "ContractKind",
    "CopyArray",
    "CumKind",
    "Cumulate",
    "DecRef",
    "Diag",
    "Div",
    "DivKind",
    "ElementAddr",
    "ElementOffset",
    "Elementwise",
    "ElementwiseInto",
    "ExceptionKind",
    "Eye",
    "FDiv",
    "FlatGet",
    "FlatIndex",
    "FloorDiv",
    "Gather",
    "GetItem",
    "InPlace",
    "IncRef",
    "IndexAssign",
    "Invert",
    "JoinKind",
    "Jump",
    "LShift",
    "Len",
    "LinalgSolve",
    "Linspace",
    "Load",
    "MakeTuple",
    "MaskAssign",
    "MathCall",
    "MathCheck",
    "MathFn",
    "MathName",
    "Max",
    "Min",
    "Mod",
    "Mul",
    "Neg",
    "NewArray",
    "Not",
    "NumpyCall",
    "NumpyReduce",
    "Outer",
    "Phi",
    "PointerAdd",
    "Poison",
    "Pow",
    "RShift",
    "Raise",
    "RaiseFormat",
    "Reduce",
    "ReduceKind",
    "Reshape",
    "Return",
    "Roll",
    "Select",
    "SetItem",
    "SharedArray",
    "SliceView",
    "SolveKind",
    "Sort",
    "SortKind",
    "Store",
    "Sub",
    "SyncThreads",
    "Take",
    "TapeFree",
    "TapeNew",
    "TapePop",
    "TapePush",
    "Trace",
    "Transpose",
    "Triangle",
    "TupleGet",
    "UnaryOp",
]
