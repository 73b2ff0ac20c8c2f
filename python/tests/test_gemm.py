"""fp32 gemm on numpy arrays of every storage order against a float64 reference."""
import threading
import time

import numpy as np
import pytest

import adaptcore
from conftest import close, isas, ref


def layouts(x):
    """The same matrix as C-ordered, Fortran-ordered, a transposed view and a strided slice."""
    yield np.ascontiguousarray(x)
    yield np.asfortranarray(x)
    yield np.ascontiguousarray(x.T).T
    big = np.zeros((x.shape[0] * 2, x.shape[1] * 3), dtype=x.dtype)
    big[::2, ::3] = x
    yield big[::2, ::3]  # no unit stride: copied by the binding


SHAPES = [(1, 1, 1), (1, 4096, 64), (7, 5, 3), (33, 17, 129), (64, 64, 64), (5, 300, 1),
          (200, 1, 70), (128, 96, 500)]


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_matches_reference_in_every_order(m, n, k, rng, ctx2):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    want = ref(a, b)
    for la in layouts(a):
        for lb in layouts(b):
            c = adaptcore.gemm(la, lb, context=ctx2)
            assert c.shape == (m, n) and c.dtype == np.float32
            assert close(c, want, k)


@pytest.mark.parametrize("order", ["C", "F"])
def test_gemm_in_place_alpha_beta(order, rng):
    m, n, k = 40, 30, 20
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c0 = rng.standard_normal((m, n)).astype(np.float32)
    c = np.array(c0, order=order)
    out = adaptcore.gemm(a, b, c, alpha=0.5, beta=-2.0)
    assert out is c
    assert close(c, 0.5 * ref(a, b) - 2.0 * c0, k)


def test_output_slice_keeps_padding(rng):
    a = rng.standard_normal((8, 16)).astype(np.float32)
    b = rng.standard_normal((16, 8)).astype(np.float32)
    big = np.full((8, 12), 7.0, dtype=np.float32)
    adaptcore.gemm(a, b, big[:, 2:10])
    assert close(big[:, 2:10], ref(a, b), 16)
    assert (big[:, :2] == 7).all() and (big[:, 10:] == 7).all()


def test_every_isa_path(rng):
    a = rng.standard_normal((37, 45)).astype(np.float32)
    b = rng.standard_normal((45, 29)).astype(np.float32)
    for isa in isas():
        ctx = adaptcore.Context(threads=2, isa=isa, read_environment=False)
        assert close(adaptcore.gemm(a, b, context=ctx), ref(a, b), 45)


def test_empty_dimensions():
    a = np.ones((0, 5), dtype=np.float32)
    b = np.ones((5, 3), dtype=np.float32)
    assert adaptcore.gemm(a, b).shape == (0, 3)
    c = np.full((2, 3), 4.0, dtype=np.float32)
    adaptcore.gemm(np.ones((2, 0), np.float32), np.ones((0, 3), np.float32), c, beta=0.5)
    assert (c == 2.0).all()  # k = 0 scales C by beta


def test_bad_arguments_raise_clear_errors():
    a = np.ones((4, 5), dtype=np.float32)
    with pytest.raises(ValueError, match="shapes do not compose"):
        adaptcore.gemm(a, a)
    with pytest.raises(TypeError, match="float64"):
        adaptcore.gemm(a.astype(np.float64), a.T)
    with pytest.raises(TypeError, match="element type"):
        adaptcore.gemm(a.astype(np.float64), a.T.copy())
    with pytest.raises(ValueError, match="2-D"):
        adaptcore.gemm(np.ones(5, np.float32), a)
    c = np.zeros((8, 8), dtype=np.float32)
    with pytest.raises(ValueError, match="unit stride"):
        adaptcore.gemm(a, a.T, c[::2, ::2])
    with pytest.raises(ValueError, match="residency"):
        adaptcore.gemm(a, a.T, residency="warm")


def test_aliasing_is_a_library_error():
    x = np.ones((6, 6), dtype=np.float32)
    with pytest.raises(adaptcore.Error) as err:
        adaptcore.gemm(x, x, x)
    assert err.value.status == "Aliasing"
    assert err.value.code == 7
    assert isinstance(err.value, RuntimeError)


def test_context_settings():
    ctx = adaptcore.Context(threads=3, read_environment=False)
    assert ctx.threads == 3
    ctx.threads = 1
    assert ctx.threads == 1
    with pytest.raises(adaptcore.Error):
        ctx.threads = 0
    ctx.isa = "generic"
    assert ctx.isa == "generic"
    with pytest.raises(ValueError):
        ctx.isa = "sse9"
    ctx.residency = "memory"
    assert ctx.residency == "memory"
    adaptcore.gemm(np.ones((3, 3), np.float32), np.ones((3, 3), np.float32), context=ctx)
    assert ctx.cached_plans() >= 0
    ctx.clear_plan_cache()
    assert ctx.cached_plans() == 0
    with pytest.raises(adaptcore.Error) as err:
        ctx.load_plan_file("/nonexistent/plans.json")
    assert err.value.status == "InvalidPlanFile"
    hw = adaptcore.hardware()
    assert hw["cores"] >= 1


def test_default_context_thread_setting():
    old = adaptcore.get_num_threads()
    try:
        adaptcore.set_num_threads(1)
        assert adaptcore.get_num_threads() == 1
    finally:
        adaptcore.set_num_threads(old)
    assert adaptcore.get_isa() in ("generic", "avx2", "avx512", "avx512_vnni", "avx512_bf16", "amx")


def test_gil_is_released_while_computing(rng):
    # A Python thread keeps running while another is inside a long call: with the GIL held the
    # longest pause between its steps would be the whole call.
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 1024)).astype(np.float32)
    ctx = adaptcore.Context(threads=1, read_environment=False)
    adaptcore.gemm(a, b, context=ctx)
    t0 = time.perf_counter()
    for _ in range(3):
        adaptcore.gemm(a, b, context=ctx)
    call = (time.perf_counter() - t0) / 3
    done = threading.Event()

    def work():
        for _ in range(3):
            adaptcore.gemm(a, b, context=ctx)
        done.set()

    t = threading.Thread(target=work)
    gaps = []
    last = time.perf_counter()
    t.start()
    while not done.is_set():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
        time.sleep(0.001)
    t.join()
    assert len(gaps) > 10
    assert max(gaps) < 0.5 * call * 3, (max(gaps), call)


def test_concurrent_calls_from_python_threads(rng):
    a = rng.standard_normal((150, 70)).astype(np.float32)
    bs = [rng.standard_normal((70, 90)).astype(np.float32) for _ in range(4)]
    out = [None] * 4

    def run(i):
        for _ in range(5):
            out[i] = adaptcore.gemm(a, bs[i])

    ts = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i in range(4):
        assert close(out[i], ref(a, bs[i]), 70)


def test_explain_returns_the_planners_reasoning():
    e = adaptcore.explain(16, 4096, 4096)
    assert e["candidates"]
    chosen = e["chosen"]
    assert chosen == e["candidates"][e["chosen_index"]]
    assert all(c["predicted_us"] >= chosen["predicted_us"] for c in e["candidates"])
    assert chosen["bound"] in ("compute", "memory", "pack", "sync")
    assert e["capacity"] in e["class"] and e["parallelism"] in e["class"]
    assert adaptcore.explain(64, 64, 64, dtype="bfloat16")["kernels"]
    assert adaptcore.explain(64, 64, 64, dtype="int8")["candidates"]
    assert adaptcore.explain(0, 8, 8)["chosen"] is None
    with pytest.raises(adaptcore.Error) as err:
        adaptcore.explain(-1, 8, 8)
    assert err.value.status == "InvalidDimension"
    with pytest.raises(ValueError):
        adaptcore.explain(8, 8, 8, dtype="float16")
