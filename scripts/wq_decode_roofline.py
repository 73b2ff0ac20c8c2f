#!/usr/bin/env python3
"""Weight-quantized decode against its roofline, per M (docs/QUANT.md, "Decode roofline").

For each shape and M, runs `adaptcore run --dtype DTYPE --cold --json` (the timed calls rotate over
copies of the weights filling 256 MiB, so every call streams its weights from memory) and prints
the median time, the roofline max(weight bytes / measured DRAM read rate, dot-product work /
measured vpdpbusd peak) and the fraction of it reached. The DRAM rate and the peak are measured
in each run, beside the call.

  scripts/wq_decode_roofline.py [--cli build/tools/adaptcore] [--dtype w8a16] [--threads 2]
                                [--ms 1,2,4,8,12,16] [--shapes 4096x4096,4096x14336,14336x4096]
                                [--repeat R]

With --repeat R the whole sweep runs R times (cells interleaved, so a slow minute of the shared
machine hits different cells each time) and each cell reports the median of its R fractions.
"""
import argparse
import json
import math
import subprocess
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", default="build/tools/adaptcore")
    p.add_argument("--dtype", default="w8a16")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--ms", default="1,2,3,4,6,8,12,16")
    p.add_argument("--shapes", default="4096x4096,4096x14336,14336x4096",
                   help="KxN pairs (weights K x N)")
    p.add_argument("--seconds", type=float, default=0.5)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--json", help="write the records here")
    a = p.parse_args()
    records = []
    cells = [(k, n, m) for shape in a.shapes.split(",")
             for k, n in [tuple(int(x) for x in shape.split("x"))]
             for m in (int(x) for x in a.ms.split(","))]
    runs = {c: [] for c in cells}
    for rep in range(a.repeat):
        for k, n, m in cells:
            cmd = [a.cli, "run", "--dtype", a.dtype, "--m", str(m), "--n", str(n), "--k", str(k),
                   "--threads", str(a.threads), "--cold", "--json", "--no-compare",
                   "--seconds", str(a.seconds)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            r = json.loads(out)
            r["repeat"] = rep
            records.append(r)
            runs[(k, n, m)].append(r)
    print(f"{a.dtype}, {a.threads} thread(s), weights in memory (--cold), {a.repeat} run(s) a cell")
    print(f"{'K x N':>12} {'M':>3} {'median us':>10} {'roofline us':>11} {'bound':>6} "
          f"{'of roofline':>11} {'GB/s':>7}")
    fr = []
    for (k, n, m), rs in runs.items():
        rs = sorted(rs, key=lambda r: r["fraction_of_roofline"])
        r = rs[len(rs) // 2]  # the median run of the cell
        dram_us = r["weight_bytes"] / (r["measured_dram_read_gbs"] * 1e3)
        bound = "dram" if dram_us >= r["roofline_us"] - 1e-9 else "dot"
        fr.append(r["fraction_of_roofline"])
        span = (f"  ({100 * rs[0]['fraction_of_roofline']:.0f}-"
                f"{100 * rs[-1]['fraction_of_roofline']:.0f}%)" if len(rs) > 1 else "")
        print(f"{k:>5} x {n:<5} {m:>3} {r['median_us']:>10.1f} {r['roofline_us']:>11.1f} "
              f"{bound:>6} {100 * r['fraction_of_roofline']:>10.1f}% {r['weight_gbs']:>7.1f}{span}",
              flush=True)
    print(f"fraction of the roofline: min {100 * min(fr):.1f}%, geomean "
          f"{100 * math.exp(sum(math.log(x) for x in fr) / len(fr)):.1f}%, "
          f"{sum(1 for x in fr if x >= 0.85)} of {len(fr)} at >= 85%")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(records, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
