#!/usr/bin/env python3
"""How far adaptcore could get against the best library per shape, from a bench results.csv.

For each results.csv (`adaptcore bench ... --out DIR` writes DIR/results.csv) prints:
  geomean      adaptcore's speedup over the fastest vendor library per shape (min times)
  ties         the geomean if every shape a library wins were a tie (adaptcore's ceiling
               without beating the libraries where they are already faster)
  near-peak    shapes whose best library already runs within 1.15x of the FMA peak
               (--peak GFLOP/s at the run's thread count; no 1.15x is possible there)
  winners      which library is fastest, shape count each
"""
import argparse
import collections
import csv
import math


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--peak", type=float, required=True, help="FMA peak, GFLOP/s")
    args = ap.parse_args()
    for path in args.csv:
        shapes = collections.defaultdict(dict)
        for r in csv.DictReader(open(path)):
            if r["status"] == "ok":
                shapes[r["shape"]][r["lib"]] = r
        speedups, near_peak, winners = [], 0, collections.Counter()
        for libs in shapes.values():
            ours = libs.get("adaptcore")
            vendors = [(float(r["min_us"]), lib) for lib, r in libs.items() if lib != "adaptcore"]
            if ours is None or not vendors:
                continue
            best_us, best_lib = min(vendors)
            winners[best_lib] += 1
            speedups.append(best_us / float(ours["min_us"]))
            flop = 2.0 * int(ours["m"]) * int(ours["n"]) * int(ours["k"])
            if best_us < 1.15 * flop / (args.peak * 1e3):
                near_peak += 1
        n = len(speedups)
        geo = math.exp(sum(map(math.log, speedups)) / n)
        ties = math.exp(sum(math.log(max(s, 1.0)) for s in speedups) / n)
        print(f"{path}: {n} shapes, geomean {geo:.3f}x, ties {ties:.3f}x, "
              f"near-peak {near_peak} ({100.0 * near_peak / n:.0f}%), winners {dict(winners)}")


if __name__ == "__main__":
    main()
