"""Tensor parallelism through torch.distributed (gloo over loopback, two processes), the local
GEMMs through adaptcore.torch: the split block must equal the whole one."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                    reason="torch.distributed with gloo is not available")
def test_tensor_parallel_block_two_ranks():
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
           os.path.join(ROOT, "bench", "scaleout", "tp_mlp.py"), "--hidden", "256", "--inter",
           "512", "--heads", "4", "--kv-heads", "2", "--tokens", "1,7,33", "--steps", "2"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("{")][-1])
    assert report["world"] == 2 and report["correct"]
    assert [c["tokens"] for c in report["cases"]] == [1, 7, 33]
    assert all(c["max_rel_err"] < 1e-5 for c in report["cases"])
