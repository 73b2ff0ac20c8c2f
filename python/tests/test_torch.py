"""PyTorch integration: the custom operators against torch's own results, the Linear module and
patch_model, torch.compile tracing, and the BLAS drop-in reaching torch's fp32 matmuls."""
import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

import adaptcore.torch as act  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402


def rel_err(got, want):
    got, want = got.double(), want.double()
    return float((got - want).abs().max() / want.abs().max().clamp_min(1e-30))


@pytest.fixture(autouse=True)
def seed():
    torch.manual_seed(0)


ACTS = {"": lambda y: y, "relu": F.relu, "silu": F.silu,
        "gelu_tanh": lambda y: F.gelu(y, approximate="tanh"), "gelu_erf": F.gelu}


@pytest.mark.parametrize("activation", sorted(ACTS))
def test_linear_op_fp32(activation):
    x = torch.randn(2, 7, 96)
    w = torch.randn(80, 96)
    b = torch.randn(80)
    got = act.linear(x, w, b, activation)
    assert got.shape == (2, 7, 80)
    assert rel_err(got, ACTS[activation](F.linear(x.double(), w.double(), b.double()))) < 1e-5


def test_linear_op_bf16_and_swiglu():
    x = torch.randn(5, 64).to(torch.bfloat16)
    w = torch.randn(48, 64).to(torch.bfloat16)
    got = act.linear(x, w, None, "")
    assert got.dtype == torch.bfloat16
    assert rel_err(got, F.linear(x.double(), w.double())) < 1e-2
    # SwiGLU: gate and up rows interleaved in one weight
    g, u = torch.randn(32, 64), torch.randn(32, 64)
    wi = torch.stack([g, u], dim=1).reshape(64, 64)
    xf = torch.randn(5, 64)
    got = act.linear(xf, wi, None, "swiglu")
    want = F.silu(xf.double() @ g.double().T) * (xf.double() @ u.double().T)
    assert got.shape == (5, 32) and rel_err(got, want) < 1e-5


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("bfloat16", 1.5e-2), ("w8a16", 1.5e-2),
                                       ("w4a16", 0.2)])
def test_linear_module(dtype, tol):
    ref = nn.Linear(256, 120)
    mod = act.Linear.from_linear(ref, dtype=dtype)
    assert mod.weight_bytes > 0
    for shape in [(1, 256), (3, 256), (2, 9, 256)]:
        x = torch.randn(shape)
        got = mod(x)
        assert got.dtype == torch.float32 and got.shape == (*shape[:-1], 120)
        assert rel_err(got, ref(x).detach()) < tol, dtype
    xb = torch.randn(4, 256).to(torch.bfloat16)
    assert mod(xb).dtype == torch.bfloat16


def test_patch_model_and_compile():
    model = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 128), nn.ReLU())
    model.add_module("lm_head", nn.Linear(128, 10))
    x = torch.randn(6, 64)
    want = model(x).detach()
    assert act.patch_model(model, dtype="float32", skip=["lm_head"]) == 2
    assert isinstance(model[0], act.Linear) and type(model.lm_head) is nn.Linear
    with torch.no_grad():
        assert rel_err(model(x), want) < 1e-5
        compiled = torch.compile(model, backend="aot_eager", fullgraph=True, dynamic=True)
        for m in (6, 1, 17):
            xm = torch.randn(m, 64)
            assert rel_err(compiled(xm), model(xm)) < 1e-6
    with pytest.raises(ValueError):
        act.patch_model(model, dtype="fp8")


def test_opcheck():
    x = torch.randn(3, 32)
    w = torch.randn(16, 32)
    torch.library.opcheck(act.linear, (x, w, torch.randn(16), "relu"),
                          test_utils=("test_schema", "test_faketensor"))
    mod = act.Linear(w, None, dtype="w8a16")
    torch.library.opcheck(act.linear_quantized, (x, mod._id, 16, None, "", 2),
                          test_utils=("test_schema", "test_faketensor"))


def test_grouped_linear_top2():
    tokens, k, n, experts = 9, 32, 24, 4
    ws = [torch.randn(n, k) for _ in range(experts)]
    mods = [act.Linear(w, None, dtype="float32") for w in ws]
    x = torch.randn(tokens, k)
    choice = torch.stack([torch.randperm(experts)[:2] for _ in range(tokens)])
    gate = torch.rand(tokens, 2)
    rows, gather, weights = [], [], []
    for e in range(experts):
        t, s = torch.nonzero(choice == e, as_tuple=True)
        rows.append(len(t))
        gather.append(t)
        weights.append(gate[t, s])
    gather = torch.cat(gather)
    handles = [m._id for m in mods]
    y = act.grouped_linear(x, handles, torch.tensor(rows), gather, gather, torch.cat(weights), n,
                           "", tokens)
    want = torch.zeros(tokens, n, dtype=torch.float64)
    for t in range(tokens):
        for s in range(2):
            want[t] += gate[t, s].double() * (x[t].double() @ ws[int(choice[t, s])].double().T)
    assert rel_err(y, want) < 1e-5
    # without a scatter: one row per routed row, activation fused
    y2 = act.grouped_linear(x, handles, torch.tensor(rows), gather, torch.empty(0),
                            torch.empty(0), n, "silu", -1)
    assert y2.shape == (int(sum(rows)), n)


class ToyMLP(nn.Module):
    def __init__(self, h, i, bias):
        super().__init__()
        self.gate_proj = nn.Linear(h, i, bias=bias)
        self.up_proj = nn.Linear(h, i, bias=bias)
        self.down_proj = nn.Linear(i, h, bias=bias)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class ToyExperts(nn.Module):
    """Hugging Face's layout of a block's experts (transformers 5: Qwen3-MoE, Mixtral)."""

    def __init__(self, e, h, i):
        super().__init__()
        self.gate_up_proj = nn.Parameter(torch.randn(e, 2 * i, h) / h**0.5)
        self.down_proj = nn.Parameter(torch.randn(e, h, i) / i**0.5)
        self.act_fn = nn.SiLU()

    def forward(self, x, top_k_index, top_k_weights):
        out = torch.zeros_like(x)
        for t in range(x.shape[0]):
            for s in range(top_k_index.shape[1]):
                e = int(top_k_index[t, s])
                g, u = F.linear(x[t], self.gate_up_proj[e]).chunk(2)
                out[t] += top_k_weights[t, s] * F.linear(self.act_fn(g) * u, self.down_proj[e])
        return out


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("bfloat16", 3e-2), ("w8a16", 3e-2)])
@pytest.mark.parametrize("bias", [False, True])
def test_patch_model_fuses_gated_mlp(dtype, tol, bias):
    model = nn.Sequential(ToyMLP(64, 96, bias))
    x = torch.randn(3, 5, 64)
    with torch.no_grad():
        want = model(x)
        assert act.patch_model(model, dtype=dtype) == 3
        assert isinstance(model[0], act.GatedMLP)
        assert rel_err(model(x), want) < tol


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("bfloat16", 3e-2), ("w4a16", 0.25)])
def test_patch_model_groups_experts(dtype, tol):
    e, h, i, tokens, k = 6, 64, 32, 11, 2
    block = nn.Module()
    block.experts = ToyExperts(e, h, i)
    x = torch.randn(tokens, h)
    idx = torch.stack([torch.randperm(e)[:k] for _ in range(tokens)])
    idx[0, 0] = 3
    idx[1:, :] = idx[1:, :] % 4  # experts 4 and 5 get no rows
    wts = torch.softmax(torch.randn(tokens, k), dim=-1)
    with torch.no_grad():
        want = block.experts(x, idx, wts)
        assert act.patch_model(block, dtype=dtype) == 2 * e
        assert isinstance(block.experts, act.Experts)
        assert rel_err(block.experts(x, idx, wts), want) < tol


def test_experts_with_every_route_dropped():
    block = nn.Module()
    block.experts = ToyExperts(4, 32, 16)
    act.patch_model(block)
    x = torch.randn(3, 32)
    idx = torch.full((3, 2), 4)  # past the experts: routed nowhere
    with torch.no_grad():
        y = block.experts(x, idx, torch.ones(3, 2))
    assert y.shape == (3, 32) and bool((y == 0).all())


def test_linear_edge_cases():
    ref = nn.Linear(24, 10)
    mod = act.Linear.from_linear(ref)
    with torch.no_grad():
        assert mod(torch.randn(0, 24)).shape == (0, 10)
        mod.to(torch.bfloat16)  # the bias buffer becomes bf16: still read as fp32 values
        x = torch.randn(3, 24)
        assert rel_err(mod(x), ref(x)) < 1e-2
    # Inputs read where they lie (contiguous) and those copied or strided first give the same.
    for dtype, tol in (("float32", 1e-5), ("w8a16", 1.5e-2)):
        lin = act.Linear.from_linear(ref, dtype=dtype)
        with torch.no_grad():
            for x in (torch.randn(24, 6).t(), torch.randn(5, 48)[:, ::2],
                      torch.randn(5, 30)[:, :24], torch.randn(2, 3, 24).transpose(0, 1),
                      torch.randn(1, 1, 24), torch.randn(4, 24, dtype=torch.float64)):
                got = lin(x)
                assert got.shape == (*x.shape[:-1], 10) and got.dtype == x.dtype
                assert rel_err(got, ref(x.float()).to(x.dtype)) < tol, (dtype, x.stride())
    with pytest.raises(ValueError, match="bias"):
        act.Linear(torch.randn(8, 4), torch.randn(4))
    model = nn.Sequential(ToyMLP(16, 24, False))
    act.patch_model(model, dtype="float32", skip=["down_proj"])
    assert isinstance(model[0], ToyMLP) and type(model[0].down_proj) is nn.Linear
    assert isinstance(model[0].gate_proj, act.Linear)


def test_hugging_face_moe_model():
    transformers = pytest.importorskip("transformers")
    cfg = transformers.Qwen3MoeConfig(hidden_size=128, moe_intermediate_size=32,
                                      intermediate_size=256, num_experts=8, num_experts_per_tok=2,
                                      num_hidden_layers=2, num_attention_heads=4,
                                      num_key_value_heads=2, head_dim=32, vocab_size=500)
    model = transformers.AutoModelForCausalLM.from_config(cfg).eval()
    ids = torch.randint(0, 500, (2, 9))
    with torch.no_grad():
        want = model(ids).logits
        act.patch_model(model, dtype="float32")
        assert isinstance(model.model.layers[0].mlp.experts, act.Experts)
        assert rel_err(model(ids).logits, want) < 1e-5


def run_python(code, env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300)


def test_blas_drop_in_reaches_torch_fp32_linear():
    # Loaded before torch, libadaptcore_blas.so's sgemm_ serves nn.Linear (prefill, and decode
    # as an n = 1 sgemm); ADAPTCORE_VERBOSE logs each call the library runs.
    code = """
        import ctypes, adaptcore
        ctypes.CDLL(adaptcore.blas_library(), mode=ctypes.RTLD_GLOBAL)
        import torch
        print("capability", torch.backends.cpu.get_cpu_capability())
        torch.set_num_threads(1)
        lin = torch.nn.Linear(200, 300)
        with torch.no_grad():
            for m in (16, 1):
                x = torch.randn(m, 200)
                y = lin(x)
                ref = x.double() @ lin.weight.double().T + lin.bias.double()
                assert float((y.double() - ref).abs().max()) < 1e-4
        print("done")
    """
    r = run_python(code, {"ADAPTCORE_VERBOSE": "1"})
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("adaptcore: f32")]
    assert any("m=16" in ln and "n=300" in ln and "k=200" in ln for ln in lines), r.stderr
    assert any("m=1 " in ln and "n=300" in ln for ln in lines), r.stderr
    # torch's thread setting is the library's (the host's OpenMP threads)
    assert all("threads=1" in ln for ln in lines), lines
    # without the drop-in, no call reaches adaptcore
    with_drop_in = [ln for ln in r.stdout.splitlines() if ln.startswith("capability")]
    r = run_python(code.replace("ctypes.CDLL(adaptcore.blas_library(), mode=ctypes.RTLD_GLOBAL)",
                                ""), {"ADAPTCORE_VERBOSE": "1"})
    assert r.returncode == 0 and "adaptcore: f32" not in r.stderr
    # and torch's own kernels keep their vector ISA: the drop-in brings no library of its own
    # into the global scope (libcpuinfo did, and torch's operators fell to their scalar path)
    assert with_drop_in == [ln for ln in r.stdout.splitlines() if ln.startswith("capability")]
