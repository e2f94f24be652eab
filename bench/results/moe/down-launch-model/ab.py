"""Old against new build of epifuse-grouped-probe --down, timed in turn in one device call: per call the dispatched
down GEMM of each build, the fastest kernel forced (mean of both builds), and the forced kernels' drift (new/old).
  cd <run folder> && python3 ../ab.py fit fresh-tokens other-models"""
import re, sys, math, collections
def load(f):
    d = collections.OrderedDict()
    for line in open(f):
        m = re.match(r'(\S+)\s+(\S+)\s+T\s+(\d+) rows\s+(\d+).*?  (down.*?)\s+([\d.]+) us', line)
        if m: d.setdefault((m[1], m[2], int(m[3])), {})[m[5]] = float(m[6])
    return d
ratios = []  # new/old of the dispatched call
for label in sys.argv[1:]:
    old, new = load(f'probe-down-{label}-old.log'), load(f'probe-down-{label}-new.log')
    for k in old:
        o, n = old[k], new[k]
        od, nd = o['down, bound T'], n['down, bound T']
        forced = {name.replace('down forced ', '').split(' c')[0]: (o[name] + n[name]) / 2 for name in o if 'forced' in name and '16x8' not in name}
        best = min(forced.values()); bestname = min(forced, key=forced.get)
        drift = [n[name] / o[name] for name in o if 'forced' in name]
        g = math.exp(sum(map(math.log, drift)) / len(drift))
        ratios.append(nd / od)
        print(f"{k[0]:14s} {k[1]:7s} {k[2]:5d} old {od:8.1f} new {nd:8.1f} new/old {nd/od:.3f}  best forced {best:8.1f} ({bestname}) new/best {nd/best:.3f}  forced drift {g:.3f}")
print('n', len(ratios), 'geomean new/old', round(math.exp(sum(map(math.log, ratios))/len(ratios)), 3), 'min', round(min(ratios), 3), 'max', round(max(ratios), 3))
