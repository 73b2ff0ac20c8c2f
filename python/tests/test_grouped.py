"""Grouped GEMM for Mixture-of-Experts: uneven and zero expert rows, gather and scatter."""
import numpy as np
import pytest

import adaptcore
from conftest import close


def test_grouped_plain_rows(rng, ctx2):
    k, n = 64, 48
    rows = np.array([3, 0, 17, 1], np.int64)
    ws = [rng.standard_normal((k, n)).astype(np.float32) for _ in rows]
    handles = [adaptcore.pack_weights(w, context=ctx2) if r else None for w, r in zip(ws, rows)]
    a = rng.standard_normal((int(rows.sum()), k)).astype(np.float32)
    c, sched = adaptcore.gemm_grouped(a, handles, rows, schedule=True, context=ctx2)
    r0 = 0
    for e, r in enumerate(rows):
        if r:
            want = a[r0:r0 + r].astype(np.float64) @ ws[e]
            assert close(c[r0:r0 + r], want, k)
        r0 += r
    assert sched["threads"] == 2 and len(sched["core_measured_us"]) == 2
    assert {u["expert"] for u in sched["units"]} == {0, 2, 3}
    plan = adaptcore.explain_grouped(a, handles, rows, c, context=ctx2)
    assert len(plan["core_predicted_us"]) == 2 and plan["core_measured_us"] == []


def test_grouped_gather_scatter_top2(rng, ctx2):
    # 10 tokens, 4 experts, top-2 routing: routed rows gather tokens, the scatter combines them.
    k, n, tokens = 32, 40, 10
    ws = [rng.standard_normal((k, n)).astype(np.float32) for _ in range(4)]
    handles = [adaptcore.pack_weights(w, context=ctx2) for w in ws]
    x = rng.standard_normal((tokens, k)).astype(np.float32)
    choice = np.stack([rng.choice(4, 2, replace=False) for _ in range(tokens)])
    gate = rng.uniform(0, 1, (tokens, 2)).astype(np.float32)
    gather, scatter, weights, rows = [], [], [], []
    for e in range(4):
        t, slot = np.nonzero(choice == e)
        rows.append(len(t))
        gather += list(t)
        scatter += list(t)
        weights += list(gate[t, slot])
    gather = np.array(gather, np.int64)
    c = adaptcore.gemm_grouped(x, handles, np.array(rows, np.int64), gather=gather,
                               scatter=gather.copy(), scatter_weights=np.array(weights, np.float32),
                               context=ctx2)
    want = np.zeros((tokens, n))
    for t in range(tokens):
        for s in range(2):
            want[t] += gate[t, s] * (x[t].astype(np.float64) @ ws[choice[t, s]])
    assert c.shape == (tokens, n) and close(c, want, k)


def test_grouped_quantized_and_errors(rng):
    k, n = 64, 32
    rows = np.array([2, 5], np.int64)
    ws = [rng.standard_normal((k, n)).astype(np.float32) for _ in rows]
    q = [adaptcore.quantize_weights(w) for w in ws]
    a = rng.standard_normal((7, k)).astype(np.float32)
    c = adaptcore.gemm_grouped(a, q, rows)
    want = np.vstack([a[:2] @ adaptcore.gemm_quantized(np.eye(k, dtype=np.float32), q[0]),
                      a[2:] @ adaptcore.gemm_quantized(np.eye(k, dtype=np.float32), q[1])])
    assert np.abs(c - want).max() <= 1e-3 * np.abs(want).max()
    with pytest.raises(TypeError, match="mixed"):
        adaptcore.gemm_grouped(a, [q[0], adaptcore.pack_weights(ws[1])], rows)
    with pytest.raises(ValueError, match="expert_rows"):
        adaptcore.gemm_grouped(a, q, np.array([7], np.int64))
    with pytest.raises(adaptcore.Error) as err:
        adaptcore.gemm_grouped(a, q, rows, gather=np.array([0, 1, 2, 3, 4, 5, 99], np.int64))
    assert err.value.status == "InvalidArgument"


def test_grouped_one_row_activations_in_column_order(rng):
    k, n = 32, 16
    w = rng.standard_normal((k, n)).astype(np.float32)
    x = rng.standard_normal((k, 5)).astype(np.float32)
    a = x.T[0:1]  # 1 x k, its elements 5 apart
    c = adaptcore.gemm_grouped(a, [adaptcore.pack_weights(w)], np.array([1], np.int64))
    assert close(c, a.astype(np.float64) @ w, k)
