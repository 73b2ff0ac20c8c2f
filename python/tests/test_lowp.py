"""bf16 and int8 GEMMs on numpy arrays (bf16 as uint16 bit patterns) against exact references."""
import numpy as np
import pytest

import adaptcore
from conftest import close, isas, ref


def test_bf16_round_trip(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    b = adaptcore.to_bf16(x)
    assert b.dtype == np.uint16
    back = adaptcore.from_bf16(b)
    assert np.all(np.abs(back - x) <= np.abs(x) * 2.0**-8)
    assert np.array_equal(adaptcore.from_bf16(adaptcore.to_bf16(back)), back)  # exact values stay
    assert np.isnan(adaptcore.from_bf16(adaptcore.to_bf16(np.array([np.nan], np.float32))))[0]
    # ties to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7
    assert adaptcore.from_bf16(adaptcore.to_bf16(np.array([1 + 2.0**-8], np.float32)))[0] == 1.0


@pytest.mark.parametrize("m,n,k", [(1, 64, 128), (17, 33, 65), (64, 200, 96), (3, 1, 9)])
def test_gemm_bf16(m, n, k, rng, ctx2):
    a = adaptcore.to_bf16(rng.standard_normal((m, k)))
    b = adaptcore.to_bf16(rng.standard_normal((k, n)))
    want = ref(adaptcore.from_bf16(a), adaptcore.from_bf16(b))
    for bb in (b, np.asfortranarray(b)):
        c = adaptcore.gemm_bf16(a, bb, context=ctx2)
        assert c.dtype == np.float32 and close(c, want, k)
    c16 = adaptcore.gemm_bf16(a, b, out_dtype="bfloat16", context=ctx2)
    assert c16.dtype == np.uint16
    got = adaptcore.from_bf16(c16)
    bound = 2.0**-8 * np.abs(want) + 1e-4 * np.sqrt(k) * np.abs(want).max()
    assert np.all(np.abs(got - want) <= bound)


def test_gemm_bf16_every_isa(rng):
    a = adaptcore.to_bf16(rng.standard_normal((20, 40)))
    b = adaptcore.to_bf16(rng.standard_normal((40, 24)))
    want = ref(adaptcore.from_bf16(a), adaptcore.from_bf16(b))
    for isa in isas():
        ctx = adaptcore.Context(threads=2, isa=isa, read_environment=False)
        assert close(adaptcore.gemm_bf16(a, b, context=ctx), want, 40)


def int8_reference(a, b, za, zb, beta, c0, off_rows=None, off_cols=None, off_fixed=0):
    r = (a.astype(np.int64) - np.asarray(za, np.int64).reshape(-1, 1)) @ (
        b.astype(np.int64) - np.asarray(zb, np.int64).reshape(1, -1))
    r = r + beta * c0.astype(np.int64) + off_fixed
    if off_rows is not None:
        r = r + off_rows.astype(np.int64).reshape(-1, 1)
    if off_cols is not None:
        r = r + off_cols.astype(np.int64).reshape(1, -1)
    return r


@pytest.mark.parametrize("a_type", [np.uint8, np.int8])
def test_gemm_int8_exact(a_type, rng, ctx2):
    m, n, k = 23, 41, 300
    info = np.iinfo(a_type)
    a = rng.integers(info.min, info.max + 1, (m, k)).astype(a_type)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    c = np.zeros((m, n), np.int32)
    adaptcore.gemm_int8(a, b, c, context=ctx2)
    assert np.array_equal(c, int8_reference(a, b, 0, 0, 0, c))
    # zero points per row of A and one for B, beta, a per-column C offset
    za = rng.integers(-5, 5, m).astype(np.int32)
    c0 = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
    off = rng.integers(-100, 100, n).astype(np.int32)
    c = c0.copy()
    adaptcore.gemm_int8(a, np.asfortranarray(b), c, a_zero_point=za, b_zero_point=3, beta=2,
                        c_offset=off, c_offset_kind="column", context=ctx2)
    assert np.array_equal(c, int8_reference(a, b, za, np.full(n, 3), 2, c0, off_cols=off))
    c = adaptcore.gemm_int8(a, b, c_offset=np.full(m, 7, np.int32), c_offset_kind="row")
    assert np.array_equal(c, int8_reference(a, b, 0, 0, 0, c, off_fixed=7))


def test_int8_argument_errors(rng):
    a = np.zeros((4, 8), np.uint8)
    b = np.zeros((8, 5), np.int8)
    with pytest.raises(ValueError, match="a_zero_point"):
        adaptcore.gemm_int8(a, b, a_zero_point=np.zeros(3, np.int32))
    with pytest.raises(TypeError):
        adaptcore.gemm_int8(a, b, a_zero_point=np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="c_offset_kind"):
        adaptcore.gemm_int8(a, b, c_offset=np.zeros(4, np.int32), c_offset_kind="diagonal")
    with pytest.raises(TypeError):
        adaptcore.gemm_int8(a, b.astype(np.uint8))
    with pytest.raises(adaptcore.Error) as err:  # a list on an int32 C must end in an output
        adaptcore.gemm_int8(a, b, post_ops=[adaptcore.post.relu()])
    assert err.value.status == "InvalidArgument"
