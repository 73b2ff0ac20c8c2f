"""The cost of one small linear-layer call from PyTorch, the unit a decode step pays per layer:
adaptcore.torch.Linear (eager path), the adaptcore::linear_packed operator, the public array API
(adaptcore.gemm_packed) and stock nn.Linear, on the same weights in the same process; medians
of `--rounds` rounds of `--calls` calls each, one thread (pin the process: taskset -c 1).

    taskset -c 1 python3 bench/python/call_overhead.py --n 576 --k 576
"""
import argparse
import statistics
import time

import torch

import adaptcore
import adaptcore.torch as act


def per_call_us(fn, calls, rounds):
    for _ in range(calls // 10):
        fn()
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=576)
    p.add_argument("--k", type=int, default=576)
    p.add_argument("--m", type=int, default=1)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=7)
    args = p.parse_args()
    torch.set_num_threads(1)
    adaptcore.set_num_threads(1)
    lin = torch.nn.Linear(args.k, args.n)
    mod = act.Linear.from_linear(lin)
    x = torch.randn(args.m, args.k)
    c = torch.empty(args.m, args.n)
    bias = [adaptcore.post.bias(mod.bias)]
    arms = {
        "adaptcore.torch.Linear": lambda: mod(x),
        "adaptcore::linear_packed op": lambda: act.linear_packed(x, mod._id, args.n, mod.bias, ""),
        "adaptcore.gemm_packed (arrays)": lambda: adaptcore.gemm_packed(x, mod._handle, c,
                                                                        post_ops=bias),
        "torch nn.Linear": lambda: lin(x),
    }
    print(f"M={args.m} N={args.n} K={args.k}, 1 thread, median of {args.rounds} x {args.calls}")
    with torch.inference_mode():
        for name, fn in arms.items():
            print(f"{name:32} {per_call_us(fn, args.calls, args.rounds):8.2f} us/call")


if __name__ == "__main__":
    main()
