"""The down GEMM's launch model (fit.py's constants) on the gate/up probe of e132efe, whose dispatch had the
same four tiers: the calls where it would leave the rule, and that pick's measured time over the rule's.
(Rows: ./expert_rows 256 8 1 33 65 100 129 160 200 256 333 777 1024 1500 4096, and 64 8, 8 2.)"""
import math
import re

from fit import KERNEL, by_rule, modeled_us

c = dict(wide_rate=2.67e6, few_rate=1.0e6, tile_us=3, bytes_per_us=3.9e6, launch_us=10)
files = {m: f'rows-gate-up-{m}.txt' for m in ('deepseek-v3', 'qwen2-57b', 'mixtral')}
dims = {'deepseek-v3': (2048, 7168), 'qwen2-57b': (2560, 3584), 'mixtral': (14336, 4096)}
times = {}
for line in open('../probe-random-data/random-interleaved-e132efe.log'):
    m = re.match(r'(\S+)\s+(\S+)\s+T\s+(\d+) rows.*?  (grouped|forced.*?|dense.*?)\s+([\d.]+) us', line)
    if not m: continue
    name = m[4]
    key = 'rule' if name == 'grouped' else next((t for k, t in KERNEL.items() if k + ' ' in name), None)
    model = 'qwen2-57b' if m[1] == 'qwen2-57b' else m[1]
    if key is not None: times[(model, m[2], int(m[3]), key)] = float(m[5])
ratios = []
for model, f in files.items():
    n, k = dims[model]
    wr, K = 2 * n, k
    for line in open(f):
        p = line.split(); routing, T = p[0], int(p[1]); rows = list(map(int, p[2:]))
        if sum(rows) <= 64: continue
        opts = {'rule': by_rule(rows, wr)}
        for t in (1, 2, 3): opts[t] = [t if r else -1 for r in rows]
        us = {o: modeled_us(rows, a, wr, K, c) for o, a in opts.items()}
        one = min((o for o in opts if o != 'rule'), key=lambda o: us[o])
        pick = one if us[one] < 0.92 * us['rule'] else 'rule'
        if (model, routing, T, pick) not in times or (model, routing, T, 'rule') not in times: continue
        r = times[(model, routing, T, pick)] / times[(model, routing, T, 'rule')]
        ratios.append(r)
        if pick != 'rule': print(f"{model:12s} {routing:7s} {T:5d} pick {pick} {r:.3f}")
print('geomean', math.exp(sum(map(math.log, ratios))/len(ratios)), 'n', len(ratios), 'worst', max(ratios))
