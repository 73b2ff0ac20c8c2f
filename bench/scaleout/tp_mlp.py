"""Tensor parallelism through PyTorch's own distributed engine, adaptcore as the node-local GEMM:
a Llama-style block's gated MLP and attention projections split Megatron-style over the ranks
(gate / up and Q / K / V by columns, i.e. by intermediate units and by heads; down and O by rows),
one all-reduce (gloo) per half. Checks the result against the same block run whole in one
process and reports the time per step.

    torchrun --standalone --nproc_per_node=2 bench/scaleout/tp_mlp.py
    torchrun --standalone --nproc_per_node=1 bench/scaleout/tp_mlp.py   # the one-process time

Every rank builds the same weights (one seed), keeps its shard in adaptcore.torch modules
(packed fp32), and rank 0 also runs the unsplit block for the check."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist
from torch.nn import functional as F

import adaptcore.torch as act


def make_weights(hidden, inter, heads, kv_heads):
    g = torch.Generator().manual_seed(7)
    head_dim = hidden // heads
    r = lambda *s: torch.randn(*s, generator=g) / s[-1] ** 0.5
    return {"q": r(heads * head_dim, hidden), "k": r(kv_heads * head_dim, hidden),
            "v": r(kv_heads * head_dim, hidden), "o": r(hidden, heads * head_dim),
            "gate": r(inter, hidden), "up": r(inter, hidden), "down": r(hidden, inter)}


class Block:
    """Attention (projections, causal softmax(QK^T)V over the rank's heads, O) then the gated
    MLP, on the rank's shard; `reduce` sums the row-split halves across ranks."""

    def __init__(self, w, heads, kv_heads, rank, world, reduce):
        assert heads % world == 0 and kv_heads % world == 0 and w["gate"].shape[0] % world == 0
        hd = w["q"].shape[0] // heads
        self.heads, self.kv_heads, self.hd = heads // world, kv_heads // world, hd
        qs, ks = self.heads * hd, self.kv_heads * hd
        inter = w["gate"].shape[0] // world
        cols = lambda t, n: t[rank * n:(rank + 1) * n]          # output units of this rank
        rows = lambda t, n: t[:, rank * n:(rank + 1) * n]       # input units of this rank
        qkv = torch.cat([cols(w["q"], qs), cols(w["k"], ks), cols(w["v"], ks)])
        self.qkv = act.Linear(qkv, None, dtype="float32")
        self.o = act.Linear(rows(w["o"], qs).contiguous(), None, dtype="float32")
        mlp = [torch.nn.Linear(1, 1, bias=False) for _ in range(3)]
        mlp[0].weight = torch.nn.Parameter(cols(w["gate"], inter).contiguous())
        mlp[1].weight = torch.nn.Parameter(cols(w["up"], inter).contiguous())
        mlp[2].weight = torch.nn.Parameter(rows(w["down"], inter).contiguous())
        self.mlp = act.GatedMLP(*mlp, dtype="float32")
        self.reduce = reduce

    def __call__(self, x):
        t = x.shape[0]
        qkv = self.qkv(x)
        qs, ks = self.heads * self.hd, self.kv_heads * self.hd
        q = qkv[:, :qs].reshape(t, self.heads, self.hd).transpose(0, 1)
        k = qkv[:, qs:qs + ks].reshape(t, self.kv_heads, self.hd).transpose(0, 1)
        v = qkv[:, qs + ks:].reshape(t, self.kv_heads, self.hd).transpose(0, 1)
        rep = self.heads // self.kv_heads
        a = F.scaled_dot_product_attention(q, k.repeat_interleave(rep, 0),
                                           v.repeat_interleave(rep, 0), is_causal=True)
        h = x + self.reduce(self.o(a.transpose(0, 1).reshape(t, -1)))
        return h + self.reduce(self.mlp(h))


def all_reduce(t):
    dist.all_reduce(t)
    return t


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--inter", type=int, default=5632)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--tokens", default="1,16,128")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--threads", type=int, default=1, help="threads per rank")
    args = p.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(args.threads)
    w = make_weights(args.hidden, args.inter, args.heads, args.kv_heads)
    block = Block(w, args.heads, args.kv_heads, rank, world, all_reduce)
    whole = Block(w, args.heads, args.kv_heads, 0, 1, lambda t: t) if rank == 0 else None
    report = {"world": world, "threads_per_rank": args.threads, "hidden": args.hidden,
              "inter": args.inter, "cases": []}
    with torch.inference_mode():
        for t in [int(s) for s in args.tokens.split(",")]:
            x = torch.randn(t, args.hidden, generator=torch.Generator().manual_seed(t))
            y = block(x)
            err = None
            if rank == 0:
                ref = whole(x)
                err = float((y - ref).abs().max() / ref.abs().max())
            times = []
            for _ in range(args.steps):
                dist.barrier()
                t0 = time.perf_counter()
                block(x)
                times.append(time.perf_counter() - t0)
            report["cases"].append({"tokens": t, "median_ms": statistics.median(times) * 1e3,
                                    "max_rel_err": err})
    if rank == 0:
        ok = all(c["max_rel_err"] < 1e-5 for c in report["cases"])
        report["correct"] = ok
        print(json.dumps(report))
        if not ok:
            raise SystemExit("tp_mlp: the split block differs from the whole one")
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
