"""The Python layer under hostile use: wrong argument types get TypeError / OverflowError /
ValueError naming the argument (never AttributeError or RuntimeError('std::bad_cast')), and a
daemon thread inside a call when the interpreter exits does not abort the process."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import adaptcore
from adaptcore import post


def test_post_ops_of_the_wrong_type_are_type_errors():
    a = np.ones((4, 8), np.float32)
    b = np.ones((8, 6), np.float32)
    with pytest.raises(TypeError, match=r"post_ops\[0\]: expected an operation"):
        adaptcore.gemm(a, b, post_ops=["relu"])
    with pytest.raises(TypeError, match="post_ops: expected a list"):
        adaptcore.gemm(a, b, post_ops="relu")
    with pytest.raises(TypeError, match="post_ops: expected a list"):
        adaptcore.gemm(a, b, post_ops=post.relu())
    # A real list still works.
    out = adaptcore.gemm(a, b, post_ops=[post.relu()])
    assert np.all(out == 8.0)


def test_missing_weights_are_type_errors():
    a = np.ones((4, 8), np.float32)
    with pytest.raises(TypeError, match="gemm_packed: weights"):
        adaptcore.gemm_packed(a, None)
    with pytest.raises(TypeError, match="gemm_packed: weights"):
        adaptcore.gemm_packed(a, np.ones((8, 8), np.float32))
    with pytest.raises(TypeError, match="gemm_quantized: weights"):
        adaptcore.gemm_quantized(a, None)


def _experts():
    w = adaptcore.pack_weights(np.ones((8, 6), np.float32))
    return [w, w]


def test_fractional_expert_rows_are_refused():
    a = np.ones((6, 8), np.float32)
    with pytest.raises(TypeError, match="expert_rows: expected integers"):
        adaptcore.gemm_grouped(a, _experts(), [3.5, 2.5])
    with pytest.raises(TypeError, match="expert_rows: expected integers"):
        adaptcore.gemm_grouped(a, _experts(), np.array([3.0, 3.0]))
    c = adaptcore.gemm_grouped(a, _experts(), [3, 3])
    assert c.shape == (6, 6) and np.all(c == 8.0)
    # Rows routed beyond A: the fault named, not a "negative dimension".
    with pytest.raises(ValueError, match="route 8 rows but a has only 6"):
        adaptcore.gemm_grouped(a, _experts(), [4, 4])


def test_grouped_weights_of_the_wrong_type_are_type_errors():
    a = np.ones((6, 8), np.float32)
    with pytest.raises(TypeError, match=r"weights\[1\]"):
        adaptcore.gemm_grouped(a, [_experts()[0], "w"], [3, 3])


def test_zero_points_beyond_int32_are_overflow_errors():
    a = np.ones((4, 8), np.uint8)
    b = np.ones((8, 6), np.int8)
    for bad in (2**40, -(2**31) - 1, 2**70):
        with pytest.raises(OverflowError, match="does not fit in int32"):
            adaptcore.gemm_int8(a, b, a_zero_point=bad)
    with pytest.raises((TypeError, ValueError)):
        adaptcore.gemm_int8(a, b, a_zero_point="two")
    out = adaptcore.gemm_int8(a, b, a_zero_point=1)
    assert np.all(out == 0)


def test_swiglu_on_odd_columns_names_the_fault():
    a = np.ones((4, 8), np.float32)
    b = np.ones((8, 5), np.float32)
    c = np.empty((4, 5), np.float32)
    out = np.empty((4, 2), np.float32)
    with pytest.raises((adaptcore.Error, ValueError)) as err:
        adaptcore.gemm(a, b, c, post_ops=[post.swiglu(out)])
    assert "negative" not in str(err.value)


@pytest.mark.parametrize("threads", [1, 2])
def test_daemon_thread_inside_a_call_at_exit_does_not_abort(threads):
    # The main thread returns while a daemon thread is inside adaptcore.gemm: CPython ends such
    # threads when they take the GIL back during finalization (pthread_exit), which aborted the
    # process through the extension's frames. Several runs: the timing differs each time.
    program = textwrap.dedent(f"""
        import threading, numpy as np, adaptcore
        ctx = adaptcore.Context(threads={threads}, read_environment=False)
        a = np.ones((512, 512), np.float32)
        started = threading.Event()
        def loop():
            started.set()
            while True:
                adaptcore.gemm(a, a, context=ctx)
        for _ in range(2):
            threading.Thread(target=loop, daemon=True).start()
        started.wait()
        adaptcore.gemm(a, a, context=ctx)
    """)
    for _ in range(4):
        r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                           timeout=120, env=dict(os.environ))
        assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
        assert "terminate called" not in r.stderr


def test_zero_stride_views_beyond_memory_are_overflow_errors():
    # A view claiming 2^62 elements in 4 bytes (torch's expand; numpy refuses such views): its
    # contiguous copy once wrapped to a small buffer that the copy loop overran.
    torch = pytest.importorskip("torch")
    huge = torch.zeros(1).expand(2**31, 2**31)
    b = torch.zeros(1).expand(2**31, 4)
    c = torch.zeros(1).expand(2**31, 4)  # never written: A's copy is refused first
    with pytest.raises(OverflowError, match="does not fit in memory"):
        adaptcore.gemm(huge, b, c)


def test_torch_operators_check_their_arguments_against_the_weights():
    torch = pytest.importorskip("torch")
    from adaptcore import torch as at
    layer = at.Linear(torch.ones(8, 16), torch.zeros(8), dtype="float32")
    x = torch.ones(3, 16)
    y = torch.ops.adaptcore.linear_packed(x, layer._id, 8, layer.bias, "")
    assert y.shape == (3, 8)
    with pytest.raises(ValueError, match="features"):
        torch.ops.adaptcore.linear_packed(torch.ones(3, 32), layer._id, 8, layer.bias, "")
    with pytest.raises(ValueError, match="out_features"):
        torch.ops.adaptcore.linear_packed(x, layer._id, 64, layer.bias, "")
    with pytest.raises(ValueError, match="bias"):
        torch.ops.adaptcore.linear_packed(x, layer._id, 8, torch.ones(2), "")
