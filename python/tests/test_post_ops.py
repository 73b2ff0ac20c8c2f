"""Fused epilogues from Python against an unfused float64 reference."""
import math

import numpy as np
import pytest

import adaptcore
from adaptcore import post
from conftest import close, ref

ERF = np.vectorize(math.erf)


def act(name, x):
    if name == "relu":
        return np.maximum(x, 0)
    if name == "gelu_tanh":
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    if name == "gelu_erf":
        return 0.5 * x * (1 + ERF(x / np.sqrt(2)))
    if name == "silu":
        return x / (1 + np.exp(-x))
    raise ValueError(name)


@pytest.mark.parametrize("name", ["relu", "gelu_tanh", "gelu_erf", "silu"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_bias_scale_activation_residual(name, order, rng, ctx2):
    m, n, k = 19, 70, 48
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    sc = rng.uniform(0.5, 1.5, n).astype(np.float32)
    r = rng.standard_normal((m, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32, order=order)
    ops = [post.bias(bias), post.scale(sc), getattr(post, name)(), post.residual(r)]
    adaptcore.gemm(a, b, c, post_ops=ops, context=ctx2)
    want = act(name, (ref(a, b) + bias) * sc) + r
    assert close(c, want, k, tol=2e-5)


def test_swiglu_and_store_outputs(rng, ctx2):
    m, n, k = 12, 64, 40
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    x = ref(a, b)
    out = np.empty((m, n // 2), np.float32)
    c = adaptcore.gemm(a, b, post_ops=[post.swiglu(out)], context=ctx2)
    assert close(c, x, k)  # C keeps the values before the output
    want = act("silu", x[:, 0::2]) * x[:, 1::2]
    assert close(out, want, k, tol=2e-5)
    out16 = np.empty((m, n), np.uint16)
    adaptcore.gemm(a, b, post_ops=[post.relu(), post.store(out16)], context=ctx2)
    got = adaptcore.from_bf16(out16)
    assert np.all(np.abs(got - np.maximum(x, 0)) <= 2.0**-8 * np.abs(x) + 1e-4)


def test_post_ops_on_other_types(rng, ctx2):
    m, n, k = 6, 32, 64
    bias = rng.standard_normal(n).astype(np.float32)
    a16 = adaptcore.to_bf16(rng.standard_normal((m, k)))
    b16 = adaptcore.to_bf16(rng.standard_normal((k, n)))
    c = adaptcore.gemm_bf16(a16, b16, post_ops=[post.bias(bias), post.relu()], context=ctx2)
    want = np.maximum(ref(adaptcore.from_bf16(a16), adaptcore.from_bf16(b16)) + bias, 0)
    assert close(c, want, k)
    # int8: dequantize (scale), bias, then store fp32
    a8 = rng.integers(0, 256, (m, k)).astype(np.uint8)
    b8 = rng.integers(-128, 128, (k, n)).astype(np.int8)
    sc = np.full(n, 0.01, np.float32)
    out = np.empty((m, n), np.float32)
    c32 = adaptcore.gemm_int8(a8, b8, post_ops=[post.scale(sc), post.bias(bias), post.store(out)],
                              context=ctx2)
    exact = a8.astype(np.int64) @ b8.astype(np.int64)
    assert np.array_equal(c32, exact)
    assert close(out, exact * 0.01 + bias, k)


def test_post_op_errors(rng):
    a = np.ones((4, 8), np.float32)
    b = np.ones((8, 6), np.float32)
    with pytest.raises(ValueError, match="6 values"):
        adaptcore.gemm(a, b, post_ops=[post.bias(np.ones(5, np.float32))])
    with pytest.raises(ValueError, match="4 x 3"):
        adaptcore.gemm(a, b, post_ops=[post.swiglu(np.empty((4, 6), np.float32))])
    with pytest.raises(adaptcore.Error) as err:  # an output must come last
        adaptcore.gemm(a, b, post_ops=[post.store(np.empty((4, 6), np.float32)), post.relu()])
    assert err.value.status == "InvalidArgument"
    with pytest.raises(ValueError, match="at most"):
        adaptcore.gemm(a, b, post_ops=[post.relu()] * 9)


def test_output_of_one_row_must_be_contiguous_along_it(rng):
    a = rng.standard_normal((1, 16)).astype(np.float32)
    b = rng.standard_normal((16, 6)).astype(np.float32)
    base = np.zeros((6, 2), np.float32)
    with pytest.raises(ValueError, match="same order"):
        adaptcore.gemm(a, b, post_ops=[post.store(base[:, :1].T)])  # 1 x 6, elements 2 apart
    assert (base == 0).all()
    out = np.zeros((1, 6), np.float32)
    adaptcore.gemm(a, b, post_ops=[post.store(out)])
    assert close(out, ref(a, b), 16)
