#!/usr/bin/env python3
"""Prints every figure of bench/results/host-cost/kept-launches/README.md from the JSON here.

    python3 bench/results/host-cost/kept-launches/summary.py
"""
import glob
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))

# (op, shape) of the rows the README quotes.
CALLS = [
    ("gated", "1x14336x4096"),
    ("gemm", "1x4096x4096 bias_gelu"),
    ("gated", "1x14336x4096, A/B: launches kept"),
    ("gated", "1x14336x4096, A/B: launches made anew"),
    ("gemm", "1x4096x4096 bias_gelu, A/B: launches kept"),
    ("gemm", "1x4096x4096 bias_gelu, A/B: launches made anew"),
    ("gated", "1x14336x4096, 80 weights in turn"),
    ("gated", "1x14336x4096, 80 weights in turn, launches kept"),
    ("gated", "1x14336x4096, x new every call"),
    ("gated", "1x14336x4096, x new every call, launches kept"),
    ("gated", "1x14336x4096, x new every call, A/B: launches kept"),
    ("gated", "1x14336x4096, x new every call, A/B: launches made anew"),
    ("gated", "1x14336x4096 kept_launch_alone"),
    ("gated", "1x14336x4096 empty_kernel_launch"),
    ("gemm", "1x4096x4096", "cublaslt"),
    ("gemm", "1x4096x4096", "epifuse-delegated"),
]


def rows(path):
    data = json.load(open(path))
    return {(r["op"], r["shape"], r["impl"]): r["cpu_us_median"] for r in data["host_cost"]}


def by_shape(table, op, shape, impl=None):
    for (o, s, i), us in table.items():
        if (o, s) == (op, shape) and impl in (None, i):
            return us
    return None


def host_cost_runs(run):
    for build in ("new", "old"):
        files = sorted(glob.glob(os.path.join(HERE, run, "host-cost", f"host-cost-{build}-*.json")))
        if build == "new":
            files += glob.glob(os.path.join(HERE, run, "host-cost.json"))  # a single run of the new build
        tables = [rows(f) for f in files]
        if not tables:
            continue
        print(f"\n{run}, {build} build ({len(tables)} run(s)): median CPU us per call, per run")
        for op, shape, *impl in CALLS:
            values = [by_shape(t, op, shape, *impl) for t in tables]
            if all(v is None for v in values):
                continue
            cells = " ".join(f"{v:6.2f}" if v is not None else "     -" for v in values)
            ok = [v for v in values if v is not None]
            label = shape + (f" [{impl[0]}]" if impl else "")
            print(f"  {op:5s} {label:50s} {cells}   median {statistics.median(ok):.2f}")
        for op, shape in [("gemm", "1x4096x4096 bias_gelu"), ("gated", "1x14336x4096")]:
            excess = [by_shape(t, op, shape) - by_shape(t, "gated", "1x14336x4096 empty_kernel_launch") for t in tables]
            print(f"  {op} {shape} over the same run's empty launch: median {statistics.median(excess):+.2f} us")
        if build == "new":
            for op, shape in [("gated", "1x14336x4096"), ("gemm", "1x4096x4096 bias_gelu"),
                              ("gated", "1x14336x4096, x new every call")]:
                kept = [by_shape(t, op, shape + ", A/B: launches kept") for t in tables]
                anew = [by_shape(t, op, shape + ", A/B: launches made anew") for t in tables]
                if None in kept or None in anew:
                    continue
                saved = [a - k for k, a in zip(kept, anew)]
                ratio = [k / a for k, a in zip(kept, anew)]
                print(f"  in-process A/B, {op} {shape}: kept - anew = "
                      + ", ".join(f"{-s:.2f} us ({r:.3f}x)" for s, r in zip(saved, ratio)))


def parts():
    table = rows(os.path.join(HERE, "run168", "host-cost-parts.json"))
    print("\nrun168, new build, one run: where a kept gated call's time goes (median CPU us per call)")
    for (op, shape, impl), us in table.items():
        if impl.startswith("part: ") or "A/B" in shape or shape in ("1x14336x4096", "1x4096x4096 bias_gelu"):
            print(f"  {op:5s} {shape:55s} {us:6.2f}")


def bench_rows(path):
    data = json.load(open(path))
    return {(r["M"], r["N"], r["K"], r.get("epilogue"), r["impl"]): r["median_us"]
            for r in data["rows"] if "median_us" in r}


def benches():
    print("\nrun168, the GEMM bench (bias+GELU and plain rows), median us: new / a2efd17, ratio")
    new = bench_rows(os.path.join(HERE, "run168", "gemm-new.json"))
    old = bench_rows(os.path.join(HERE, "run168", "gemm-old.json"))
    for key in sorted(new):
        if key in old and key[4].startswith("epifuse"):
            print(f"  {key[0]}x{key[1]}x{key[2]} {key[3]:9s} {key[4]:17s} {new[key]:8.1f} {old[key]:8.1f} "
                  f"{new[key] / old[key]:.3f}")
    print("\nrun169, the gated bench, median us in the order new 1, new 2, old 1, old 2 (runs alternated), "
          "new/old on the sums; cuBLASLt + act·mul in the same runs")
    runs = {(b, r): bench_rows(os.path.join(HERE, "run169", f"gated-{b}-{r}.json")) for b in ("new", "old")
            for r in (1, 2)}
    order = [("new", 1), ("new", 2), ("old", 1), ("old", 2)]
    for key in sorted(k for k in runs[("new", 1)] if k[4] == "epifuse"):
        ours = [runs[o][key] for o in order]
        base = [runs[o].get(key[:4] + ("cublaslt+act",)) for o in order]
        print(f"  {key[0]}x{key[1]}x{key[2]}: " + " ".join(f"{v:7.1f}" for v in ours)
              + f"   new/old {(ours[0] + ours[1]) / (ours[2] + ours[3]):.3f}   cuBLASLt + act·mul "
              + " ".join(f"{v:7.1f}" for v in base if v is not None))


if __name__ == "__main__":
    for run in ("run166", "run167", "run170", "run172"):
        host_cost_runs(run)
    parts()
    benches()
