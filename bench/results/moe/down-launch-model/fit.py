"""The grouped GEMM's launch model (include/epifuse/detail/group_tiers.hpp, LaunchModel) against the
down-GEMM probe: each call's time modeled under the tier rule (grouped_setup.cuh) and with every
expert forced on each kernel, the constants grid-searched for the least rms log error, then which
launch the model would pick at each call and what that pick measured.
  python3 fit.py [probe logs ...]   (default: fit-89185bf/probe-down-*.log)"""
import glob
import itertools
import math
import re
import sys

SM = 132
MODELS = {"deepseek-v3": (2048, 7168), "qwen2-57b": (2560, 3584), "mixtral": (14336, 4096)}  # expert N, K
# The grouped GEMM's tiers: 128x32 (few rows), unswapped 128x256 1x2, swapped 128x160 and 128x208:
# token rows per tile, the weight's rows per tile, the rule's cost of a padded row.
TIERS = [(32, 128, 1.0), (128, 256, 1.0), (160, 128, 1.04), (208, 128, 1.04)]
KERNEL = {"128x32": 0, "128x256": 1, "128x160": 2, "128x208": 3}


def rows_per_call(model):
    calls = {}
    for line in open(f"rows-{model}.txt"):
        p = line.split()
        calls[(p[0], int(p[1]))] = [int(r) for r in p[2:]]
    return calls


def tier_of(r):
    if r <= 64:
        return 0
    best, cost = 1, math.ceil(r / 128) * 128
    for t in (2, 3):
        c = math.ceil(r / TIERS[t][0]) * TIERS[t][0] * TIERS[t][2]
        if c < cost:
            best, cost = t, c
    return best


def by_rule(rows, weight_rows):
    tiles = [0] * 4
    for r in rows:
        if r:
            tiles[tier_of(r)] += math.ceil(r / TIERS[tier_of(r)][0])
    out = []
    for r in rows:
        t = tier_of(r) if r else -1
        if t > 1 and tiles[t] * math.ceil(weight_rows / 128) < SM:
            t = 1
        out.append(t)
    return out


def modeled_us(rows, tiers, weight_rows, K, c):
    total = 0.0
    for t in range(4):
        on = [r for r, a in zip(rows, tiers) if a == t]
        if not on:
            continue
        tile_rows, weight_tile, _ = TIERS[t]
        tiles = sum(math.ceil(r / tile_rows) for r in on) * math.ceil(weight_rows / weight_tile)
        rate, fixed = (c["few_rate"], 0.0) if t == 0 else (c["wide_rate"], c["tile_us"])
        compute = math.ceil(tiles / SM) * (tile_rows * weight_tile * K / rate + fixed)
        read = 2 * sum(weight_rows * K + r * (K + weight_rows) for r in on) / c["bytes_per_us"]
        total += max(compute, read) + c["launch_us"]
    return total


def measured(logs):
    times = {}
    for log in logs:
        for line in open(log):
            m = re.match(r"(\S+)\s+(\S+)\s+T\s+(\d+) rows.*?  (down.*?)\s+([\d.]+) us", line)
            if not m:
                continue
            name = m[4]
            kernel = next((t for k, t in KERNEL.items() if k + " " in name), None)
            key = "rule" if "bound" in name else kernel
            if key is not None:
                times[(m[1], m[2], int(m[3]), key)] = float(m[5])
    return times


def calls(times):
    out = []
    for model, (n, k) in MODELS.items():
        weight_rows, K = k, n  # the down GEMM: out has the model's hidden size, K is the expert's N
        for (routing, T), rows in rows_per_call(model).items():
            if (model, routing, T, "rule") not in times:
                continue
            options = {"rule": by_rule(rows, weight_rows)}
            for t in range(4):
                options[t] = [t if r else -1 for r in rows]
            out.append((model, routing, T, rows, weight_rows, K, options))
    return out


def main():
    logs = sys.argv[1:] or sorted(glob.glob("fit-89185bf/probe-down-*.log"))
    times = measured(logs)
    data = calls(times)
    grid = dict(wide_rate=[2.4e6, 2.67e6, 2.9e6], few_rate=[0.9e6, 1.0e6, 1.2e6], tile_us=[0, 3, 6, 9],
                bytes_per_us=[3.6e6, 3.9e6, 4.2e6], launch_us=[0, 10, 20])
    best = None
    for values in itertools.product(*grid.values()):
        c = dict(zip(grid, values))
        errors = [math.log(modeled_us(rows, a, wr, K, c) / times[(m, r, T, o)]) ** 2
                  for m, r, T, rows, wr, K, opts in data for o, a in opts.items() if (m, r, T, o) in times]
        rms = math.sqrt(sum(errors) / len(errors))
        if best is None or rms < best[0]:
            best = (rms, c, len(errors))
    rms, c, n = best
    print(f"{n} times of {len(data)} calls; least rms log error {rms:.3f} at {c}")
    for saving in (0.0, 0.03, 0.05, 0.08, 0.10):
        ratios = []
        for m, r, T, rows, wr, K, opts in data:
            us = {o: modeled_us(rows, a, wr, K, c) for o, a in opts.items()}
            one = min((o for o in opts if o not in ("rule", 0)), key=lambda o: us[o])
            pick = one if us[one] < (1 - saving) * us["rule"] else "rule"
            ratios.append((times[(m, r, T, pick)] / times[(m, r, T, "rule")], m, r, T, pick))
        geo = math.exp(sum(math.log(x[0]) for x in ratios) / len(ratios))
        print(f"min saving {saving:.2f}: picked/rule time geomean {geo:.3f}, "
              f"{sum(1 for x in ratios if x[4] != 'rule')} calls leave the rule, worst {max(ratios)[0]:.3f}")
        if saving == 0.08:
            for x in ratios:
                print(f"  {x[1]:12s} {x[2]:7s} {x[3]:5d} {str(x[4]):5s} {x[0]:.3f}")


if __name__ == "__main__":
    main()
