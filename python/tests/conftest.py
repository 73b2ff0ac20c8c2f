import numpy as np
import pytest

import adaptcore


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def ctx2():
    return adaptcore.Context(threads=2, read_environment=False)


def ref(a, b):
    """float64 product of float arrays (the reference every test compares against)."""
    return np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64)


def close(x, y, k, tol=1e-5):
    """fp32 results against a float64 reference: error relative to the sum of |products|."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    scale = max(1.0, float(np.abs(y).max())) * max(1, k) ** 0.5
    return float(np.abs(x - y).max()) <= tol * scale


def isas():
    """The registry levels this CPU and build run."""
    out = []
    for name in ("generic", "avx2", "avx512", "avx512_vnni", "avx512_bf16", "amx"):
        c = adaptcore.Context(threads=1, isa=name, read_environment=False)
        if c.isa == name:
            out.append(name)
    return out
