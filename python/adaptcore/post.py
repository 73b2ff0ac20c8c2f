"""Fused epilogue operations (docs/EPILOGUES.md), applied to C in the store, in list order:

    adaptcore.gemm(x, w, post_ops=[post.bias(b), post.gelu_tanh()])

Vectors are float32 of n values (a column of C is an output channel); the residual is an m x n
float32 matrix; swiglu and store write an output of their own (float32 or bf16: torch.bfloat16
or numpy uint16 bit patterns) and come last; C keeps the values before them.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

# adaptcore::PostOpKind
BIAS, SCALE, RESIDUAL, RELU, GELU_TANH, GELU_ERF, SILU, SWIGLU, STORE = range(1, 10)


class PostOp(NamedTuple):
    kind: int
    data: Optional[Any] = None


def bias(values: Any) -> PostOp:
    """C(i, j) += values[j]."""
    return PostOp(BIAS, values)


def scale(values: Any) -> PostOp:
    """C(i, j) *= values[j] (per-output-channel scale, dequantization)."""
    return PostOp(SCALE, values)


def residual(matrix: Any) -> PostOp:
    """C(i, j) += matrix(i, j)."""
    return PostOp(RESIDUAL, matrix)


def relu() -> PostOp:
    return PostOp(RELU)


def gelu_tanh() -> PostOp:
    return PostOp(GELU_TANH)


def gelu_erf() -> PostOp:
    return PostOp(GELU_ERF)


def silu() -> PostOp:
    return PostOp(SILU)


def swiglu(out: Any) -> PostOp:
    """out(i, p) = silu(C(i, 2p)) * C(i, 2p + 1): gate and up projections from one GEMM over
    weights whose columns alternate gate, up; out is m x n/2."""
    return PostOp(SWIGLU, out)


def store(out: Any) -> PostOp:
    """out = C (m x n) in out's type: the bf16 output of an fp32 GEMM, the fp32 result of an
    int8 one."""
    return PostOp(STORE, out)
