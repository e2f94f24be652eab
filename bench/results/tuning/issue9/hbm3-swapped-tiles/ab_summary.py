#!/usr/bin/env python3
"""The HBM3 swapped-tiles rule (ea67cca) against the pingpong kernel each draw had before it,
forced in the same run: per draw the rule takes, time new/old and both ratios to cuBLASLt + act·mul.
Run from this folder: python3 ab_summary.py"""
import json, math
def rule(M,N,K,old):
    if not (1025<=M<=4096 and M%128 and 2048<=K<5120): return None
    if 'pingpong_128x128' not in old: return None
    step=256 if 'swap' in old else 128
    r160=-(-M//160)*160; r224=-(-M//224)*224
    t,r=(160,r160) if r160<=r224 else (224,r224)
    return t if r <= -(-M//step)*step else None
g=lambda v: math.exp(sum(map(math.log,v))/len(v))
def stats(picks, files, label):
    pk=dict(l.split() for l in open(picks))
    res=[]
    for s,k in pk.items():
        M,N,K=map(int,s.split('x'))
        t=rule(M,N,K,k)
        if t is None: continue
        v=[]
        for f in files:
            rows=[x for x in json.load(open(f))['rows'] if (x['M'],x['N'],x['K'])==(M,N,K)]
            if not rows: continue
            base=[x for x in rows if x['impl']=='cublaslt+act'][0]['median_us']
            old=min(x['median_us'] for x in rows if x.get('kernel')==k and x['impl']=='sweep')
            new=[x for x in rows if x['impl']=='epifuse'][0]
            assert f'128x{t}x64' in new['kernel'], (s,new['kernel'])
            v.append((new['median_us']/old, base/old, base/new['median_us']))
        res.append((s,t,g([x[0] for x in v]),g([x[1] for x in v]),g([x[2] for x in v])))
    for r in res: print(f"  {r[0]:18s} {r[1]}  time {r[2]:.3f}  vs+act {r[3]:.3f} -> {r[4]:.3f}")
    T=[r[2] for r in res]; O=[r[3] for r in res]; Nw=[r[4] for r in res]
    print(f"{label}: n={len(res)} time {g(T):.3f} ({min(T):.3f}-{max(T):.3f}); vs+act {g(O):.3f} -> {g(Nw):.3f}; below .95 {sum(x<.95 for x in O)} -> {sum(x<.95 for x in Nw)}; slower >3% {sum(x>1.03 for x in T)}")
stats('ab-8b96861/picks-before-hbm3.txt', ['ab-8b96861/ab-hbm3-pass1.json', 'ab-8b96861/ab-hbm3-pass2.json'], 'run93 draws (seed 202611286)')
stats('ab-3fbf08d/picks-before-hbm3-fresh2.txt', ['ab-3fbf08d/ab-hbm3-fresh2.json'], 'run94 draws (seed 202611287)')
stats('ab-8b96861/picks-before-hbm3-catalogue.txt', ['ab-8b96861/ab-hbm3-catalogue.json'], 'catalogue')
stats('ab-ec542b3-fresh/picks-before-hbm3-fresh3.txt', ['ab-ec542b3-fresh/ab-hbm3-fresh3.json'], 'run96 draws (seed 202611288, fresh)')
