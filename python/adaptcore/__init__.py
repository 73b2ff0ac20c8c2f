"""adaptcore: GEMM for dynamic shapes, from Python.

Every call takes numpy arrays or any DLPack tensor on the CPU (a torch tensor, without linking
libtorch) and returns its result in the framework of its first input. Matrices may be C- or
Fortran-ordered or slices of either: the order of C picks the call's layout and A or B stored in
the other order are read as transposes, without copying (`gemm(x, w.T)` reads w in place).
bf16 operands are torch.bfloat16 tensors, or numpy uint16 arrays of bf16 bit patterns
(to_bf16 / from_bf16). The GIL is released while the library computes. A call the library
refuses raises adaptcore.Error carrying the status (`err.status`, e.g. 'Aliasing').

See docs/PYTHON.md.
"""

from __future__ import annotations

import os as _os
from typing import Any, Optional, Sequence

import numpy as _np

from . import _core
from ._core import (
    Context,
    Error,
    PackedWeights,
    QuantizedWeights,
    default_context,
    explain,
    explain_grouped,
    pack_weights,
    quantize_weights,
    version,
)
from . import post

__all__ = [
    "Context", "Error", "PackedWeights", "QuantizedWeights", "default_context", "explain",
    "explain_grouped", "pack_weights", "quantize_weights", "version", "post", "gemm",
    "gemm_bf16", "gemm_int8", "gemm_packed", "gemm_quantized", "gemm_grouped", "to_bf16",
    "from_bf16", "set_num_threads", "get_num_threads", "set_isa", "get_isa", "hardware",
    "blas_library",
]

__version__ = version()

# ---- Result arrays in the framework of the inputs --------------------------------------------

_NUMPY_DTYPES = {"float32": _np.float32, "bfloat16": _np.uint16, "int32": _np.int32}


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch")


def _empty(like: Any, shape: tuple, dtype: str) -> Any:
    if _is_torch(like):
        import torch

        return torch.empty(shape, dtype=getattr(torch, dtype))
    return _np.empty(shape, dtype=_NUMPY_DTYPES[dtype])


def _zeros(like: Any, shape: tuple, dtype: str) -> Any:
    if _is_torch(like):
        import torch

        return torch.zeros(shape, dtype=getattr(torch, dtype))
    return _np.zeros(shape, dtype=_NUMPY_DTYPES[dtype])


def _shape(x: Any) -> tuple:
    return tuple(int(d) for d in x.shape)


def _dtype_name(x: Any) -> str:
    return str(x.dtype).replace("torch.", "")


def _require(value: Any, kind: type, what: str) -> None:
    """TypeError naming the argument when `value` is not a `kind` (None included)."""
    if not isinstance(value, kind):
        raise TypeError(f"{what}: expected {kind.__name__}, got {type(value).__name__}")


def _expert_rows(rows: Any) -> Any:
    """The routed-row counts as int64 values, refusing anything that is not whole numbers
    (3.5 rows must not become 3)."""
    if _is_torch(rows):
        if rows.is_floating_point() or rows.is_complex() or str(rows.dtype) == "torch.bool":
            raise TypeError(f"expert_rows: expected integers, got {rows.dtype}")
        return rows
    arr = _np.asarray(rows)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"expert_rows: expected integers, got {arr.dtype}")
    if arr.dtype.kind == "u" and arr.size and arr.max() > _np.iinfo(_np.int64).max:
        raise OverflowError("expert_rows: a count does not fit in int64")
    return arr.astype(_np.int64)


# ---- GEMM ------------------------------------------------------------------------------------


def gemm(a: Any, b: Any, c: Any = None, *, alpha: float = 1.0, beta: float = 0.0,
         post_ops: Optional[Sequence[post.PostOp]] = None, residency: str = "auto",
         context: Optional[Context] = None) -> Any:
    """C = alpha * a @ b + beta * C in fp32 (float32 arrays, 2-D). Without `c` a new C is
    returned (beta then has nothing to scale); with `c` it is written in place and returned.
    post_ops: a list from adaptcore.post, applied to C in the store (docs/EPILOGUES.md)."""
    if c is None:
        c = _empty(a, (_shape(a)[0], _shape(b)[1]), "float32")
        beta = 0.0
    _core.gemm(a, b, c, alpha, beta, post_ops, residency, context)
    return c


def gemm_bf16(a: Any, b: Any, c: Any = None, *, alpha: float = 1.0, beta: float = 0.0,
              out_dtype: str = "float32", post_ops: Optional[Sequence[post.PostOp]] = None,
              residency: str = "auto", context: Optional[Context] = None) -> Any:
    """C = alpha * a @ b + beta * C with bf16 a and b, fp32 accumulation; C float32 or bf16
    (out_dtype when C is made here; a bf16 C is rounded once, to nearest even)."""
    if c is None:
        c = _empty(a, (_shape(a)[0], _shape(b)[1]), out_dtype)
        beta = 0.0
    _core.gemm_bf16(a, b, c, alpha, beta, post_ops, residency, context)
    return c


def gemm_int8(a: Any, b: Any, c: Any = None, *, a_zero_point: Any = None,
              b_zero_point: Any = None, beta: int = 0, c_offset: Any = None,
              c_offset_kind: str = "fixed", post_ops: Optional[Sequence[post.PostOp]] = None,
              residency: str = "auto", context: Optional[Context] = None) -> Any:
    """C = (a - a_zp) @ (b - b_zp) + beta * C [+ c_offset] in int32 (exact while the true value
    fits), a uint8 or int8, b int8. Zero points: an int or an int32 vector (one per row of a /
    column of b). c_offset: an int, or int32 values per 'row' or 'column' (c_offset_kind).
    post_ops over the int32 result in fp32 must end in post.store / post.swiglu."""
    if c is None:
        c = _empty(a, (_shape(a)[0], _shape(b)[1]), "int32")
        beta = 0
    _core.gemm_int8(a, b, c, a_zero_point, b_zero_point, beta, c_offset, c_offset_kind,
                    post_ops, residency, context)
    return c


def gemm_packed(a: Any, weights: PackedWeights, c: Any = None, *, alpha: float = 1.0,
                beta: float = 0.0, out_dtype: str = "float32",
                post_ops: Optional[Sequence[post.PostOp]] = None, residency: str = "auto",
                context: Optional[Context] = None, a_zero_point: Any = None,
                b_zero_point: Any = None, c_offset: Any = None,
                c_offset_kind: str = "fixed") -> Any:
    """C = alpha * a @ W + beta * C on weights packed once (pack_weights), any number of rows.
    fp32 weights take float32 a; bf16 weights bf16 a (C float32 or bf16); int8 weights uint8 or
    int8 a with the int8 arguments of gemm_int8 (C int32, alpha unused). C is row-major."""
    _require(weights, PackedWeights, "gemm_packed: weights")
    rows = _shape(a)[0]
    if weights.dtype == "int8":
        if c is None:
            c = _empty(a, (rows, weights.n), "int32")
            beta = 0
        _core.gemm_packed_int8(a, weights, c, a_zero_point, b_zero_point, int(beta), c_offset,
                               c_offset_kind, post_ops, residency, context)
        return c
    if c is None:
        c = _empty(a, (rows, weights.n),
                   out_dtype if weights.dtype == "bfloat16" else "float32")
        beta = 0.0
    _core.gemm_packed(a, weights, c, alpha, beta, post_ops, residency, context)
    return c


def gemm_quantized(a: Any, weights: QuantizedWeights, c: Any = None, *, beta: float = 0.0,
                   parts: int = 2, post_ops: Optional[Sequence[post.PostOp]] = None,
                   residency: str = "auto", context: Optional[Context] = None) -> Any:
    """C = a @ dequant(W) + beta * C (W8A16 / W4A16, docs/QUANT.md): a float32 or bf16, split
    into `parts` int8 parts (2: about 16 bits; 1: W8A8 with dynamic activation quantization)."""
    _require(weights, QuantizedWeights, "gemm_quantized: weights")
    if c is None:
        c = _empty(a, (_shape(a)[0], weights.n), "float32")
        beta = 0.0
    _core.gemm_quantized(a, weights, c, beta, parts, post_ops, residency, context)
    return c


def gemm_grouped(a: Any, weights: Sequence[Any], expert_rows: Any, c: Any = None, *,
                 gather: Any = None, scatter: Any = None, scatter_weights: Any = None,
                 c_rows: Optional[int] = None, alpha: float = 1.0, beta: float = 0.0,
                 parts: int = 2, post_ops: Optional[Sequence[post.PostOp]] = None,
                 residency: str = "auto", schedule: bool = False,
                 context: Optional[Context] = None) -> Any:
    """One call for E experts (Mixture-of-Experts, docs/GROUPED.md): expert e runs its
    expert_rows[e] routed rows (int64; 0 allowed) through weights[e] (PackedWeights of fp32 or
    bf16, or QuantizedWeights; None for an expert without rows). Routed rows read a's rows
    `gather[r]` (else row r); C rows are routed rows, or with `scatter` tokens receiving
    sum of scatter_weights[r] * y_r (the top-k combine). Returns C, or (C, schedule dict) with
    schedule=True (predicted and measured per-core times)."""
    rows = _expert_rows(expert_rows)
    for e, w in enumerate(weights):
        if w is not None and not isinstance(w, (PackedWeights, QuantizedWeights)):
            raise TypeError(f"gemm_grouped: weights[{e}]: expected PackedWeights, QuantizedWeights "
                            f"or None, got {type(w).__name__}")
    routed = int(rows.sum())
    if gather is None and routed > _shape(a)[0]:
        raise ValueError(f"gemm_grouped: expert_rows route {routed} rows but a has only "
                         f"{_shape(a)[0]} (without gather, row r of a is routed row r)")
    n = next((w.n for w in weights if w is not None), 0)
    if c is None:
        if c_rows is None:
            c_rows = int(rows.sum()) if scatter is None else _shape(a)[0]
        c = (_zeros if scatter is not None else _empty)(a, (c_rows, n), "float32")
        beta = 0.0
    sched = _core.gemm_grouped(a, list(weights), rows, c, gather, scatter, scatter_weights,
                               alpha, beta, parts, post_ops, residency, schedule, context)
    return (c, sched) if schedule else c


# ---- bf16 bit patterns for numpy -------------------------------------------------------------


def to_bf16(x: Any) -> _np.ndarray:
    """float32 values as bf16 bit patterns (uint16), rounded to nearest even (NaN kept NaN)."""
    f = _np.ascontiguousarray(x, dtype=_np.float32)
    u = f.view(_np.uint32)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(_np.uint16)
    nan = _np.isnan(f)
    if nan.any():
        rounded[nan] = ((u[nan] >> 16) | 0x40).astype(_np.uint16)
    return rounded


def from_bf16(x: Any) -> _np.ndarray:
    """bf16 bit patterns (uint16) as float32 values (exact)."""
    u = _np.ascontiguousarray(x, dtype=_np.uint16)
    return (u.astype(_np.uint32) << 16).view(_np.float32)


# ---- Settings of the default context ---------------------------------------------------------


def set_num_threads(threads: int) -> None:
    """Threads of every call on the default context (1..1024)."""
    default_context().threads = threads


def get_num_threads() -> int:
    return default_context().threads


def set_isa(isa: str) -> None:
    """'auto', 'generic', 'avx2' or 'avx512' for the default context (Error if the CPU lacks it)."""
    default_context().isa = isa


def get_isa() -> str:
    return default_context().isa


def hardware(context: Optional[Context] = None) -> dict:
    """The hardware profile the model plans with (cores, caches, bandwidths, FMA rates)."""
    import json

    return json.loads((context or default_context()).hardware_json())


def blas_library() -> str:
    """Path of libadaptcore_blas.so shipped with the package: the CBLAS cblas_sgemm and Fortran
    sgemm_ drop-in that torch's fp32 matmuls reach when it is loaded first (docs/PYTHON.md)."""
    return _os.path.join(_os.path.dirname(__file__), "lib", "libadaptcore_blas.so")
