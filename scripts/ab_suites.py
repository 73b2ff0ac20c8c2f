# ab_suites.py OUTDIR: reads what scripts/ab_suites.sh wrote; per suite the geomean new/old speed of
# adaptcore's per-shape time (the faster of each binary's two runs), the shapes below 0.9, and their same-binary spread.
import csv, glob, math, os, sys, collections
out = sys.argv[1]
suites = sorted({os.path.basename(d).rsplit('-', 2)[0] for d in glob.glob(out + '/*-old-1')})
for s in suites:
    t = {}
    for who in ('old', 'new'):
        per = collections.defaultdict(list)
        for r in (1, 2):
            f = f'{out}/{s}-{who}-{r}/results.csv'
            if not os.path.exists(f): continue
            for row in csv.DictReader(open(f)):
                if row['lib'] != 'adaptcore' or row['status'] != 'ok': continue
                key = (row['m'], row['n'], row['k'], row['trans_a'], row['trans_b'])
                per[key].append(float(row['median_us']))
        t[who] = {k: min(v) for k, v in per.items()}
    common = sorted(set(t['old']) & set(t['new']))
    if not common: print(s, 'no data'); continue
    ratios = [t['old'][k] / t['new'][k] for k in common]  # > 1: new faster
    g = math.exp(sum(map(math.log, ratios)) / len(ratios))
    low = [(k, r) for k, r in zip(common, ratios) if r < 0.9]
    print(f'{s}: {len(common)} shapes, geomean new/old speed {g:.3f}, min {min(ratios):.3f}, '
          f'below 0.9: {len(low)}')
    for k, r in sorted(low, key=lambda x: x[1])[:8]:
        print(f'   {"x".join(k[:3])} ta={k[3]} tb={k[4]}: {r:.3f} (old {t["old"][k]:.1f} us, new {t["new"][k]:.1f} us)')

# Noise: per shape, the spread between the two runs of the same binary.
print('--- shapes below 0.9 with their same-binary spread (old run ratio, new run ratio)')
for s in suites:
    runs = {}
    for who in ('old', 'new'):
        for r in (1, 2):
            f = f'{out}/{s}-{who}-{r}/results.csv'
            if not os.path.exists(f): continue
            d = {}
            for row in csv.DictReader(open(f)):
                if row['lib'] != 'adaptcore' or row['status'] != 'ok': continue
                d[(row['m'], row['n'], row['k'], row['trans_a'], row['trans_b'])] = float(row['median_us'])
            runs[(who, r)] = d
    if len(runs) < 4: continue
    bad = beyond = 0
    for k in runs[('old', 1)]:
        if not all(k in runs[x] for x in runs): continue
        o = min(runs[('old', 1)][k], runs[('old', 2)][k]); n = min(runs[('new', 1)][k], runs[('new', 2)][k])
        r = o / n
        so = max(runs[('old', 1)][k], runs[('old', 2)][k]) / o
        sn = max(runs[('new', 1)][k], runs[('new', 2)][k]) / n
        if r < 0.9:
            bad += 1
            noisy = r * max(so, sn) >= 0.9
            beyond += 0 if noisy else 1
            print(f'  {s} {"x".join(k[:3])}: {r:.3f}  spread old {so:.2f} new {sn:.2f}  {"within noise" if noisy else "BEYOND noise"}')
    print(f'  {s}: {bad} below 0.9, {beyond} beyond their spread')
