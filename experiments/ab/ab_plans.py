# ab_plans.py OLD NEW [dtypes]: the chosen plan and predicted time of two adaptcore binaries over
# random and LLM shapes, 1 and 2 threads; prints every difference. AB_COLD=1: for operands in
# memory (explain --cold).
import json, os, random, subprocess, sys, math
# A fixed hardware profile for both binaries (the profile object of `adaptcore hw --json`).
PROFILE = os.environ.get('ADAPTCORE_AB_PROFILE', 'profile.json')
OLD, NEW = sys.argv[1], sys.argv[2]
dtypes = sys.argv[3].split(',') if len(sys.argv) > 3 else ['f32', 'bf16', 'u8s8', 'w8a16']
rng = random.Random(7)
shapes = []
for _ in range(60):
    m, n, k = (int(math.exp(rng.uniform(0, math.log(4096)))) for _ in range(3))
    shapes.append((m, n, k, rng.random() < 0.3, rng.random() < 0.3))
for m in (1, 4, 8, 16, 64, 256, 1024):
    for n, k in ((4096, 4096), (11008, 4096), (4096, 11008), (1024, 4096)):
        shapes.append((m, n, k, False, False)); shapes.append((m, n, k, False, True))
def chosen(binary, m, n, k, ta, tb, t, d):
    cmd = [binary, 'explain', '-m', str(m), '-n', str(n), '-k', str(k), '-t', str(t), '--dtype', d,
           '--json', '--top', '1', '--profile', PROFILE]
    if os.environ.get('AB_COLD') == '1': cmd.append('--cold')
    if ta: cmd.append('--transa')
    if tb: cmd.append('--transb')
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0: return ('ERR ' + r.stderr.strip()[:80], 0)
    c = json.loads(r.stdout)['chosen']
    return c['describe'], c['cost']['total_us']
diff = same = 0
for d in dtypes:
    for (m, n, k, ta, tb) in shapes:
        if d.startswith('w') and (ta or tb): continue
        for t in (1, 2):
            a, b = chosen(OLD, m, n, k, ta, tb, t, d), chosen(NEW, m, n, k, ta, tb, t, d)
            if a[0] != b[0] or abs(a[1] - b[1]) > 1e-6 * max(1, a[1]):
                diff += 1
                print(f'{d} {m}x{n}x{k} ta={int(ta)} tb={int(tb)} t={t}\n  old {a[0]} {a[1]:.1f}\n  new {b[0]} {b[1]:.1f}')
            else: same += 1
print(f'same {same} differ {diff}')
