"""Weights prepared once: pack_weights + gemm_packed (fp32, bf16, int8) and quantize_weights +
gemm_quantized (W8A16, W4A16)."""
import numpy as np
import pytest

import adaptcore
from conftest import close, ref


@pytest.mark.parametrize("order", ["C", "F"])
def test_packed_fp32_every_m(order, rng, ctx2):
    k, n = 96, 200
    w = np.array(rng.standard_normal((k, n)), dtype=np.float32, order=order)
    pw = adaptcore.pack_weights(w, m_values=[1, 8, 64], context=ctx2)
    assert pw.shape == (k, n) and pw.dtype == "float32" and pw.panel_cols > 0
    assert pw.packed_bytes >= k * n * 4
    for m in (1, 2, 7, 16, 33, 100):
        a = rng.standard_normal((m, k)).astype(np.float32)
        assert close(adaptcore.gemm_packed(a, pw, context=ctx2), ref(a, w), k)
        c0 = rng.standard_normal((m, n)).astype(np.float32)
        c = c0.copy()
        adaptcore.gemm_packed(np.asfortranarray(a), pw, c, alpha=2.0, beta=0.5, context=ctx2)
        assert close(c, 2.0 * ref(a, w) + 0.5 * c0, k)


def test_packed_linear_weight_transposed(rng):
    w = rng.standard_normal((300, 128)).astype(np.float32)  # (out, in) as a Linear layer holds it
    pw = adaptcore.pack_weights(w.T)
    x = rng.standard_normal((5, 128)).astype(np.float32)
    assert close(adaptcore.gemm_packed(x, pw), ref(x, w.T), 128)


def test_packed_bf16_and_int8(rng, ctx2):
    k, n, m = 64, 96, 9
    w16 = adaptcore.to_bf16(rng.standard_normal((k, n)))
    a16 = adaptcore.to_bf16(rng.standard_normal((m, k)))
    pw = adaptcore.pack_weights(w16, context=ctx2)
    assert pw.dtype == "bfloat16"
    want = ref(adaptcore.from_bf16(a16), adaptcore.from_bf16(w16))
    assert close(adaptcore.gemm_packed(a16, pw, context=ctx2), want, k)
    assert adaptcore.gemm_packed(a16, pw, out_dtype="bfloat16", context=ctx2).dtype == np.uint16
    with pytest.raises(TypeError):  # fp32 activations on bf16 weights
        adaptcore.gemm_packed(adaptcore.from_bf16(a16), pw, context=ctx2)

    w8 = rng.integers(-128, 128, (k, n)).astype(np.int8)
    a8 = rng.integers(0, 256, (m, k)).astype(np.uint8)
    p8 = adaptcore.pack_weights(w8, context=ctx2)
    assert p8.dtype == "int8"
    c = adaptcore.gemm_packed(a8, p8, a_zero_point=128, context=ctx2)
    want8 = (a8.astype(np.int64) - 128) @ w8.astype(np.int64)
    assert c.dtype == np.int32 and np.array_equal(c, want8)


def test_packed_errors(rng):
    pw = adaptcore.pack_weights(np.ones((8, 8), np.float32))
    with pytest.raises(ValueError, match="compose"):
        adaptcore.gemm_packed(np.ones((2, 9), np.float32), pw)
    with pytest.raises(ValueError, match="row-major"):
        adaptcore.gemm_packed(np.ones((2, 8), np.float32), pw,
                              np.zeros((2, 8), np.float32, order="F"))
    with pytest.raises(adaptcore.Error) as err:
        adaptcore.pack_weights(np.ones((8, 8), np.float32), m_values=[0])
    assert err.value.status == "InvalidArgument"


def dequantized(w, fmt, group):
    """The weights as symmetric quantization (max / 127 for int8, max / 7 for int4) keeps them."""
    k, n = w.shape
    levels = 127 if fmt == "int8" else 7
    g = group if group else k
    out = np.empty_like(w, dtype=np.float64)
    for s in range(0, k, g):
        blk = w[s:s + g].astype(np.float64)
        scale = np.abs(blk).max(axis=0) / levels
        scale[scale == 0] = 1
        out[s:s + g] = np.clip(np.round(blk / scale), -levels - (fmt == "int8"), levels) * scale
    return out


@pytest.mark.parametrize("fmt,group", [("int8", 0), ("int8", 64), ("int4", 128), ("int4", 32)])
def test_quantized(fmt, group, rng, ctx2):
    k, n = 256, 96
    w = rng.standard_normal((k, n)).astype(np.float32)
    qw = adaptcore.quantize_weights(w, format=fmt, group_size=group, context=ctx2)
    assert qw.shape == (k, n) and qw.format == fmt and qw.group_size == group
    wd = dequantized(w, fmt, group)
    for m in (1, 4, 17):
        a = rng.standard_normal((m, k)).astype(np.float32)
        got = adaptcore.gemm_quantized(a, qw, context=ctx2)
        want = a.astype(np.float64) @ wd
        # two activation parts carry about 16 bits of the activations
        assert np.abs(got - want).max() <= 2e-3 * np.abs(want).max() + 1e-3, fmt
        one = adaptcore.gemm_quantized(a, qw, parts=1, context=ctx2)
        assert np.abs(one - want).max() <= 3e-2 * np.abs(want).max() + 1e-2


def test_quantized_from_int8_values(rng):
    k, n = 64, 40
    wq = rng.integers(-127, 128, (k, n)).astype(np.int8)
    scales = rng.uniform(0.01, 0.02, (1, n)).astype(np.float32)
    qw = adaptcore.quantize_weights(wq, scales=scales)
    a = rng.standard_normal((3, k)).astype(np.float32)
    want = a.astype(np.float64) @ (wq.astype(np.float64) * scales)
    got = adaptcore.gemm_quantized(a, qw)
    assert np.abs(got - want).max() <= 2e-3 * np.abs(want).max()
    with pytest.raises(ValueError, match="scales"):
        adaptcore.quantize_weights(wq)
    with pytest.raises(adaptcore.Error):
        adaptcore.quantize_weights(np.full((64, 4), np.nan, np.float32))
