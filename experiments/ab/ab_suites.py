# ab_suites.py OUTDIR: reads what experiments/ab/ab_suites.sh wrote (any number of rounds); per suite
# the geomean new/old speed of adaptcore's per-shape time (the fastest of each binary's runs),
# the shapes below 0.9, and whether each is beyond its same-binary spread (the ratio of a
# binary's slowest to fastest run of that shape): a shape is within noise when the ratio times
# the larger spread reaches 0.9.
import csv, glob, math, os, re, sys, collections
out = sys.argv[1]
suites = sorted({os.path.basename(d).rsplit('-', 2)[0] for d in glob.glob(out + '/*-old-1')})
for s in suites:
    runs = collections.defaultdict(lambda: collections.defaultdict(list))  # who -> key -> times
    for d in glob.glob(f'{out}/{s}-*-*'):
        m = re.fullmatch(re.escape(s) + r'-(old|new)-(\d+)', os.path.basename(d))
        f = os.path.join(d, 'results.csv')
        if not m or not os.path.exists(f): continue
        for row in csv.DictReader(open(f)):
            if row['lib'] != 'adaptcore' or row['status'] != 'ok': continue
            key = (row['m'], row['n'], row['k'], row['trans_a'], row['trans_b'])
            runs[m.group(1)][key].append(float(row['median_us']))
    common = sorted(k for k in set(runs['old']) & set(runs['new'])
                    if len(runs['old'][k]) == len(runs['new'][k]))
    if not common: print(s, 'no data'); continue
    best = {w: {k: min(runs[w][k]) for k in common} for w in ('old', 'new')}
    spread = {w: {k: max(runs[w][k]) / min(runs[w][k]) for k in common} for w in ('old', 'new')}
    ratios = {k: best['old'][k] / best['new'][k] for k in common}  # > 1: new faster
    g = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
    low = sorted((r, k) for k, r in ratios.items() if r < 0.9)
    beyond = [(r, k) for r, k in low if r * max(spread['old'][k], spread['new'][k]) < 0.9]
    print(f'{s}: {len(common)} shapes, {len(runs["old"][common[0]])} runs each, geomean new/old '
          f'speed {g:.3f}, min {min(ratios.values()):.3f}, below 0.9: {len(low)}, '
          f'beyond their spread: {len(beyond)}')
    for r, k in low:
        noisy = (r, k) not in beyond
        print(f'   {"x".join(k[:3])} ta={k[3]} tb={k[4]}: {r:.3f} (old {best["old"][k]:.1f} us, '
              f'new {best["new"][k]:.1f} us; spread old {spread["old"][k]:.2f} new '
              f'{spread["new"][k]:.2f}) {"within noise" if noisy else "BEYOND noise"}')
