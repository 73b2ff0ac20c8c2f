"""PyTorch integration: custom operators that torch.compile traces, a Linear module holding
prepacked or quantized weights, and patch_model to swap a model's nn.Linear layers.

    import adaptcore.torch as act
    act.patch_model(model, dtype="w4a16")      # every nn.Linear -> adaptcore.torch.Linear

fp32 without code changes goes another way: load adaptcore.blas_library() before torch
(docs/PYTHON.md, "PyTorch"). These operators are for inference (no autograd formulas).
"""

from __future__ import annotations

import itertools
import threading
from typing import Callable, Iterable, List, Optional

import torch
from torch import Tensor, nn

from . import _core, post

__all__ = ["Linear", "GatedMLP", "Experts", "patch_model", "linear", "linear_packed",
           "linear_quantized", "grouped_linear", "DTYPES"]

DTYPES = ("float32", "bfloat16", "w8a16", "w4a16")

# Activations fused into the store of C (post-ops), by name; "swiglu" halves the columns.
_ACTIVATIONS = {"": None, "none": None, "relu": post.relu, "gelu_tanh": post.gelu_tanh,
                "gelu_erf": post.gelu_erf, "silu": post.silu}


# Element type codes of adaptcore._core._linear.
_CODES = {torch.float32: 0, torch.bfloat16: 1}


def _check_activation(activation: str) -> None:
    if activation not in _ACTIVATIONS and activation != "swiglu":
        raise ValueError(f"activation: expected one of {sorted(_ACTIVATIONS)} or 'swiglu', "
                         f"got {activation!r}")


def _out_features(n: int, activation: str) -> int:
    return n // 2 if activation == "swiglu" else n


# ---- Weight handles behind integer ids (operators take tensors and scalars only) -------------

_handles: dict = {}
_handle_ids = itertools.count(1)
_handles_lock = threading.Lock()


def _register(handle) -> int:
    with _handles_lock:
        hid = next(_handle_ids)
        _handles[hid] = handle
    return hid


def _release(hid: int) -> None:
    with _handles_lock:
        _handles.pop(hid, None)


def _handle(hid: int):
    try:
        return _handles[hid]
    except KeyError:
        raise ValueError(f"adaptcore: no weights registered under handle {hid}") from None


# ---- The epilogue and the call ---------------------------------------------------------------


def _run(m: int, n: int, bias: Optional[Tensor], activation: str, out_dtype: torch.dtype,
         call: Callable) -> Tensor:
    """Runs call(c, post_ops) with C m x n in out_dtype, bias and activation fused; a SwiGLU
    writes its m x n/2 output (the returned tensor) and C is fp32 scratch."""
    ops = []
    if bias is not None:
        ops.append(post.bias(bias.detach().to(torch.float32).contiguous()))
    if activation == "swiglu":
        out = torch.empty((m, n // 2), dtype=out_dtype)
        ops.append(post.swiglu(out))
        c = torch.empty((m, n), dtype=torch.float32)
        call(c, ops)
        return out
    act = _ACTIVATIONS[activation]
    if act is not None:
        ops.append(act())
    c = torch.empty((m, n), dtype=out_dtype)
    call(c, ops or None)
    return c


def _flatten(x: Tensor) -> Tensor:
    return x.reshape(-1, x.shape[-1])


# Post-op kind of each activation (0: none), for adaptcore._core._linear.
_ACTIVATION_KINDS = {"": 0, "none": 0, "relu": post.RELU, "gelu_tanh": post.GELU_TANH,
                     "gelu_erf": post.GELU_ERF, "silu": post.SILU}


def _empty(shape, dtype: torch.dtype) -> Tensor:
    # torch.empty parses a dtype keyword in about 0.5 us, a tenth of a small decode GEMM: leave
    # it out where the default type is the one asked for.
    return torch.empty(shape) if dtype is torch.get_default_dtype() else torch.empty(
        shape, dtype=dtype)


def _on_handle(x: Tensor, handle, n: int, bias: Optional[Tensor], activation: str,
               a_dtype: torch.dtype, out_dtype: torch.dtype, parts: int) -> Tensor:
    """x (..., k) @ W (+ bias, activation) on prepared weights, x converted to a_dtype (fp32 or
    bf16), the result in out_dtype: straight to the library with the tensors' addresses
    (adaptcore._core._linear), without DLPack exports (a few microseconds a tensor, which a
    decode step pays once per layer). The operators and the modules' eager path both run it.
    A contiguous input of the right type is read where it lies and the result made in its
    final shape (no reshapes: each costs about 0.7 us, against 3-10 us for a decode layer)."""
    if not x.is_cpu:
        raise ValueError(f"adaptcore: tensors must be on the CPU, got {x.device}")
    code = _CODES.get(a_dtype)
    if code is None:
        raise TypeError(f"adaptcore: activations of type {a_dtype} (expected float32 or bfloat16)")
    out_n = n // 2 if activation == "swiglu" else n
    shape = x.shape
    k = shape[-1]
    if x.dtype is a_dtype and k > 0 and x.is_contiguous():
        x2 = x
        m = x.numel() // k
        lda = k
    else:
        x2 = x.reshape(-1, k)
        if x2.dtype != a_dtype:
            x2 = x2.to(a_dtype)
        m = x2.shape[0]
        if x2.stride(-1) != 1 or (m > 1 and x2.stride(0) < k):
            x2 = x2.contiguous()
        lda = x2.stride(0) if m > 1 else k
    out_shape = shape[:-1] + (out_n,)
    if m == 0:
        return _empty(out_shape, out_dtype)
    # The bias as the library reads it (fp32, contiguous, on the CPU): a module converted with
    # .to() / .half() after construction holds another type.
    b = 0
    if bias is not None:
        if not (bias.dtype is torch.float32 and bias.is_cpu and bias.is_contiguous()):
            bias = bias.to(device="cpu", dtype=torch.float32).contiguous()
        b = bias.data_ptr()
    y = _empty(out_shape, out_dtype)
    if activation == "swiglu":
        c = _empty((m, n), torch.float32)
        _core._linear(x2.data_ptr(), m, lda, code, handle, c.data_ptr(), n, 0, b,
                      post.SWIGLU, y.data_ptr(), out_n, _CODES[out_dtype], parts)
    else:
        _core._linear(x2.data_ptr(), m, lda, code, handle, y.data_ptr(), n,
                      _CODES[out_dtype], b, _ACTIVATION_KINDS[activation], 0, 0, 0, parts)
    return y


def _check_handle_call(x: Tensor, h, out_features: int, bias: Optional[Tensor]) -> None:
    """The operators' arguments against their weights: _linear trusts its addresses and sizes
    (a short bias was read past its end, a wider x used in part, a larger out_features left
    columns unwritten). The modules pass their own, which always agree."""
    if x.shape[-1] != h.k:
        raise ValueError(f"adaptcore: x has {x.shape[-1]} features, the weights {h.k}")
    if out_features != h.n:
        raise ValueError(f"adaptcore: out_features {out_features}, the weights have {h.n}")
    if bias is not None and (bias.dim() != 1 or bias.numel() != h.n):
        raise ValueError(f"adaptcore: bias of shape {tuple(bias.shape)}, expected ({h.n},)")


@torch.library.custom_op("adaptcore::linear", mutates_args=())
def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor], activation: str) -> Tensor:
    """F.linear(x, weight, bias) with an optional fused activation: weight (out, in) float32 or
    bfloat16 as stored (read in place, no copy), x of the same type; the result in x's type."""
    _check_activation(activation)
    x2 = _flatten(x)
    n = weight.shape[0]
    bf16 = weight.dtype == torch.bfloat16
    if bf16:
        fn = lambda c, ops: _core.gemm_bf16(x2, weight.detach().T, c, 1.0, 0.0, ops, "auto", None)
    else:
        fn = lambda c, ops: _core.gemm(x2, weight.detach().T, c, 1.0, 0.0, ops, "auto", None)
    y = _run(x2.shape[0], n, bias, activation, x.dtype, fn)
    return y.reshape(*x.shape[:-1], y.shape[-1])


@linear.register_fake
def _(x, weight, bias, activation):
    return x.new_empty((*x.shape[:-1], _out_features(weight.shape[0], activation)))


@torch.library.custom_op("adaptcore::linear_packed", mutates_args=())
def linear_packed(x: Tensor, handle: int, out_features: int, bias: Optional[Tensor],
                  activation: str) -> Tensor:
    """x @ W (+ bias, activation) on weights packed once (Linear with dtype float32 / bfloat16):
    float32 weights take float32 x; bf16 weights bf16 x (the result in x's type)."""
    _check_activation(activation)
    h = _handle(handle)
    _check_handle_call(x, h, out_features, bias)
    return _on_handle(x, h, out_features, bias, activation, x.dtype, x.dtype, 2)


@linear_packed.register_fake
def _(x, handle, out_features, bias, activation):
    return x.new_empty((*x.shape[:-1], _out_features(out_features, activation)))


@torch.library.custom_op("adaptcore::linear_quantized", mutates_args=())
def linear_quantized(x: Tensor, handle: int, out_features: int, bias: Optional[Tensor],
                     activation: str, parts: int) -> Tensor:
    """x @ dequant(W) (+ bias, activation) on int8 / int4 weights (W8A16 / W4A16): x float32 or
    bf16, split into `parts` int8 parts; the result in float32."""
    _check_activation(activation)
    h = _handle(handle)
    _check_handle_call(x, h, out_features, bias)
    return _on_handle(x, h, out_features, bias, activation, x.dtype, torch.float32, parts)


@linear_quantized.register_fake
def _(x, handle, out_features, bias, activation, parts):
    return x.new_empty((*x.shape[:-1], _out_features(out_features, activation)),
                       dtype=torch.float32)


@torch.library.custom_op("adaptcore::grouped_linear", mutates_args=())
def grouped_linear(x: Tensor, handles: List[int], expert_rows: Tensor, gather: Tensor,
                   scatter: Tensor, scatter_weights: Tensor, out_features: int,
                   activation: str, out_rows: int, parts: int = 2) -> Tensor:
    """A Mixture-of-Experts half in one call: routed row r of expert e reads x[gather[r]] (x's
    row r with an empty gather). out_rows < 0: no scatter, the result has one row per routed
    row (activation fused). out_rows >= 0: the result has out_rows rows (tokens), row t the sum
    of scatter_weights[r] * y_r over the routed rows r with scatter[r] = t (the top-k combine; no
    activation then; zeros where no row goes). handles: one per expert (0: an expert without
    rows). bf16 experts take bf16 x; quantized ones split x into `parts` int8 parts."""
    _check_activation(activation)
    ws = [None if h == 0 else _handle(h) for h in handles]
    x2 = _flatten(x).contiguous()
    rows = expert_rows.to(torch.int64).contiguous()
    g = gather.to(torch.int64).contiguous() if gather.numel() else None
    if out_rows >= 0:
        if activation not in ("", "none"):
            raise ValueError("grouped_linear: no activation with a scatter (combine first)")
        c = torch.zeros((out_rows, out_features), dtype=torch.float32)
        if scatter.numel():
            _core.gemm_grouped(x2, ws, rows, c, g, scatter.to(torch.int64).contiguous(),
                               scatter_weights.to(torch.float32).contiguous(), 1.0, 0.0, parts,
                               None, "auto", False, None)
        return c
    routed = int(rows.sum())
    fn = lambda c, ops: _core.gemm_grouped(x2, ws, rows, c, g, None, None, 1.0, 0.0, parts, ops,
                                           "auto", False, None)
    return _run(routed, out_features, None, activation, torch.float32, fn)


@grouped_linear.register_fake
def _(x, handles, expert_rows, gather, scatter, scatter_weights, out_features, activation,
      out_rows, parts=2):
    rows = out_rows if out_rows >= 0 else torch.library.get_ctx().new_dynamic_size()
    return x.new_empty((rows, _out_features(out_features, activation)), dtype=torch.float32)


# ---- Modules ----------------------------------------------------------------------------------


def _prepare(w_t: Tensor, dtype: str, group_size: Optional[int],
             m_values: Optional[Iterable[int]]):
    """The handle of op(W) = w_t (k x n, any storage order) for `dtype`."""
    mv = list(m_values) if m_values is not None else []
    if dtype == "float32":
        return _core.pack_weights(w_t.to(torch.float32), mv, [], None)
    if dtype == "bfloat16":
        return _core.pack_weights(w_t.to(torch.bfloat16), mv, [], None)
    fmt = "int8" if dtype == "w8a16" else "int4"
    # Scales per column for int8, per 128 depth values for int4 unless told otherwise.
    group = group_size if group_size is not None else (0 if fmt == "int8" else 128)
    return _core.quantize_weights(w_t.to(torch.float32), fmt, group, None, None)


def _interleave_rows(gate: Tensor, up: Tensor) -> Tensor:
    """Rows g0, u0, g1, u1, ...: the weight of one GEMM whose SwiGLU epilogue pairs them."""
    return torch.stack((gate, up), dim=1).reshape(2 * gate.shape[0], *gate.shape[1:])


class Linear(nn.Module):
    """nn.Linear on weights prepared once: dtype 'float32' or 'bfloat16' (packed panels for the
    expected rows, m_values) or 'w8a16' / 'w4a16' (int8 / int4 weights with per-column or
    per-group scales: group_size None is per column for w8a16, 128 for w4a16; activations split
    into `parts` int8 parts). The input's leading dimensions
    are kept; bf16 weights convert float32 inputs to bf16 and return float32."""

    def __init__(self, weight: Tensor, bias: Optional[Tensor] = None, dtype: str = "float32",
                 group_size: Optional[int] = None, parts: int = 2, activation: str = "",
                 m_values: Optional[Iterable[int]] = None):
        super().__init__()
        if dtype not in DTYPES:
            raise ValueError(f"dtype: expected one of {DTYPES}, got {dtype!r}")
        _check_activation(activation)
        w = weight.detach()
        self.out_features, self.in_features = int(w.shape[0]), int(w.shape[1])
        self.dtype_name, self.activation, self.parts = dtype, activation, parts
        handle = _prepare(w.T, dtype, group_size, m_values)
        self._handle = handle
        self._id = _register(handle)
        if bias is not None and bias.numel() != self.out_features:
            raise ValueError(f"bias: expected {self.out_features} values, got {bias.numel()}")
        self.register_buffer("bias", None if bias is None else
                             bias.detach().to(torch.float32).contiguous().clone(),
                             persistent=False)
        # The activations' type: packed weights take their own; quantized ones fp32 or bf16 as
        # given (None).
        self._a_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}.get(dtype)

    def __del__(self):
        _release(getattr(self, "_id", 0))

    @property
    def weight_bytes(self) -> int:
        return int(self._handle.packed_bytes)

    @classmethod
    def from_linear(cls, layer: nn.Linear, dtype: str = "float32", **kwargs) -> "Linear":
        return cls(layer.weight, layer.bias, dtype=dtype, **kwargs)

    def _eager(self, x: Tensor) -> Tensor:
        """The operator's work without its dispatch (about 10 us a call)."""
        a_dt = self._a_dtype
        if a_dt is None:  # quantized weights: fp32 or bf16 activations as given, fp32 out
            a_dt = x.dtype if x.dtype in _CODES else torch.float32
            out_dt = torch.float32
        else:
            out_dt = a_dt
        return _on_handle(x, self._handle, self.out_features, self.bias, self.activation, a_dt,
                          out_dt, self.parts)

    def forward(self, x: Tensor) -> Tensor:
        in_dtype = x.dtype
        if not (torch.compiler.is_compiling() or (x.requires_grad and torch.is_grad_enabled())):
            if torch.autograd._profiler_enabled():  # named for profiles (bench/e2e)
                with torch.profiler.record_function("adaptcore::linear_eager"):
                    y = self._eager(x)
            else:
                y = self._eager(x)
            return y if y.dtype is in_dtype else y.to(in_dtype)
        if self.dtype_name == "float32":
            y = linear_packed(x.to(torch.float32), self._id, self.out_features, self.bias,
                              self.activation)
        elif self.dtype_name == "bfloat16":
            y = linear_packed(x.to(torch.bfloat16), self._id, self.out_features, self.bias,
                              self.activation)
        else:
            y = linear_quantized(x, self._id, self.out_features, self.bias, self.activation,
                                 self.parts)
        return y if y.dtype == in_dtype else y.to(in_dtype)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self.dtype_name}, bias={self.bias is not None}"
                + (f", activation={self.activation}" if self.activation else ""))


def _is_silu(fn) -> bool:
    return isinstance(fn, nn.SiLU) or getattr(fn, "__name__", "") == "silu" or (
        type(fn).__name__ in ("SiLUActivation", "SiLU"))


class GatedMLP(nn.Module):
    """down(silu(gate(x)) * up(x)) (the Llama / Qwen / Mistral MLP) as two GEMMs: gate and up in
    one over interleaved weights with the SwiGLU fused into its store, then down."""

    def __init__(self, gate: nn.Linear, up: nn.Linear, down: nn.Linear, dtype: str = "float32",
                 **kwargs):
        super().__init__()
        bias = None
        if gate.bias is not None or up.bias is not None:
            zeros = torch.zeros(gate.out_features)
            bias = _interleave_rows(gate.bias.detach() if gate.bias is not None else zeros,
                                    up.bias.detach() if up.bias is not None else zeros)
        self.gate_up = Linear(_interleave_rows(gate.weight.detach(), up.weight.detach()), bias,
                              dtype=dtype, activation="swiglu", **kwargs)
        self.down = Linear(down.weight, down.bias, dtype=dtype, **kwargs)

    def forward(self, x: Tensor) -> Tensor:
        return self.down(self.gate_up(x))


class Experts(nn.Module):
    """The experts of a Mixture-of-Experts block (Hugging Face's Qwen3-MoE / Mixtral experts:
    gate_up_proj (E, 2I, H), down_proj (E, H, I), SiLU) as two grouped calls: gate-up with the
    SwiGLU fused over the routed rows (gathered from the tokens), then down with the routing
    weights' scatter-add into the tokens (the top-k combine). forward(hidden_states,
    top_k_index, top_k_weights) as the module it replaces."""

    def __init__(self, gate_up_proj: Tensor, down_proj: Tensor, dtype: str = "float32",
                 **kwargs):
        super().__init__()
        e, two_i, h = gate_up_proj.shape
        i = two_i // 2
        self.num_experts, self.hidden, self.inter, self.dtype_name = int(e), int(h), int(i), dtype
        gu = gate_up_proj.detach()
        dn = down_proj.detach()
        self._gate_up = [_prepare(_interleave_rows(gu[x, :i], gu[x, i:]).T, dtype,
                                  kwargs.get("group_size"), kwargs.get("m_values"))
                         for x in range(e)]
        self._down = [_prepare(dn[x].T, dtype, kwargs.get("group_size"), kwargs.get("m_values"))
                      for x in range(e)]
        self.parts = kwargs.get("parts", 2)
        self._gate_up_ids = [_register(hd) for hd in self._gate_up]
        self._down_ids = [_register(hd) for hd in self._down]

    def __del__(self):
        for hid in getattr(self, "_gate_up_ids", []) + getattr(self, "_down_ids", []):
            _release(hid)

    def forward(self, hidden_states: Tensor, top_k_index: Tensor, top_k_weights: Tensor) -> Tensor:
        tokens, k = top_k_index.shape
        flat = top_k_index.reshape(-1)
        order = torch.argsort(flat, stable=True)
        valid = flat[order] < self.num_experts  # an index past the experts routes nowhere
        order = order[valid]
        routed_tokens = order // k
        rows = torch.bincount(flat[order], minlength=self.num_experts)
        weights = top_k_weights.reshape(-1)[order].to(torch.float32)
        x = hidden_states.to(torch.bfloat16 if self.dtype_name == "bfloat16" else torch.float32)
        empty = x.new_empty(0, dtype=torch.int64)
        h = grouped_linear(x, self._gate_up_ids, rows, routed_tokens, empty, empty,
                           2 * self.inter, "swiglu", -1, self.parts)
        if self.dtype_name == "bfloat16":
            h = h.to(torch.bfloat16)
        out = grouped_linear(h, self._down_ids, rows, empty, routed_tokens, weights, self.hidden,
                             "", tokens, self.parts)
        return out.to(hidden_states.dtype)

    def extra_repr(self) -> str:
        return (f"experts={self.num_experts}, hidden={self.hidden}, intermediate={self.inter}, "
                f"dtype={self.dtype_name}")


def _gated_mlp_parts(module: nn.Module):
    parts = [getattr(module, n, None) for n in ("gate_proj", "up_proj", "down_proj")]
    if all(type(p) is nn.Linear for p in parts) and _is_silu(getattr(module, "act_fn", None)):
        return parts
    return None


def _is_experts(module: nn.Module) -> bool:
    gu, dn = getattr(module, "gate_up_proj", None), getattr(module, "down_proj", None)
    return (isinstance(gu, torch.Tensor) and isinstance(dn, torch.Tensor) and gu.dim() == 3
            and dn.dim() == 3 and gu.shape[0] == dn.shape[0] and gu.shape[1] == 2 * dn.shape[2]
            and _is_silu(getattr(module, "act_fn", None)))


def patch_model(model: nn.Module, dtype: str = "float32", *, group_size: Optional[int] = None,
                parts: int = 2, skip: Iterable[str] = (), m_values: Optional[Iterable[int]] = None,
                fuse_mlp: bool = True, experts: bool = True) -> int:
    """Replaces (in place) the linear layers of `model` with adaptcore's of `dtype` ('float32',
    'bfloat16', 'w8a16', 'w4a16'), except modules whose qualified name ends with one of `skip`
    (e.g. 'lm_head'):
      - a gated SiLU MLP (gate_proj, up_proj, down_proj: Llama, Qwen, Mistral) becomes a
        GatedMLP (gate and up in one GEMM, SwiGLU fused) unless fuse_mlp is False;
      - Hugging Face Mixture-of-Experts experts (gate_up_proj / down_proj tensors of all
        experts: Qwen3-MoE, Mixtral) become Experts (two grouped calls) unless experts is False;
      - every other nn.Linear becomes a Linear.
    Returns the number of linear layers replaced (an expert's two count two)."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype: expected one of {DTYPES}, got {dtype!r}")
    skip = tuple(skip)
    kw = dict(group_size=group_size, parts=parts,
              m_values=list(m_values) if m_values is not None else None)
    def walk(module: nn.Module, prefix: str) -> int:
        count = 0
        for child_name, child in list(module.named_children()):
            full = f"{prefix}.{child_name}" if prefix else child_name
            if any(full.endswith(s) for s in skip):
                continue
            parts_skipped = any(f"{full}.{p}".endswith(s) for s in skip
                                for p in ("gate_proj", "up_proj", "down_proj"))
            if fuse_mlp and not parts_skipped and (mlp := _gated_mlp_parts(child)) is not None:
                setattr(module, child_name, GatedMLP(*mlp, dtype=dtype, **kw))
                count += 3
            elif experts and _is_experts(child):
                setattr(module, child_name, Experts(child.gate_up_proj, child.down_proj,
                                                    dtype=dtype, **kw))
                count += 2 * int(child.gate_up_proj.shape[0])
            elif type(child) is nn.Linear:
                setattr(module, child_name, Linear.from_linear(child, dtype=dtype, **kw))
                count += 1
            else:  # replaced modules are not entered again
                count += walk(child, full)
        return count

    return walk(model, "")

