#!/usr/bin/env python3
"""How far the torch MoE benches' targets (issue 11) can be reached at all on the device that ran
them: for each epifuse row of `torch_bench.py moe` (grouped gate/up) or `moe_layer`, the fastest
time any kernel could take is the larger of the touched weight bytes over the read bandwidth and
the row's FLOPs over the peak, both measured by that run (its "ceilings"); the torch baseline's
time (epifuse's time times the ratio) over that floor is the highest ratio any kernel could reach.
Prints, per results file, each point's floor and highest ratio, then per target the points met and
the points no kernel can reach.

    tools/moe_ceilings.py bench/results/moe/torch-moe-a721b0f.json bench/results/moe/torch-moe-layer-a721b0f.json
"""
import argparse
import json

# ratio field -> [(what, the rows it counts, the ratio it needs)]
TARGETS = {
    "vs_torch_grouped_mm+act": [("gate/up >= 1.4x torch at T >= 1024", lambda r: r["tokens"] >= 1024, 1.4),
                                ("gate/up >= 1.0x torch", lambda r: True, 1.0)],
    "vs_torch_moe": [("layer >= 1.3x torch at T >= 1024", lambda r: r["tokens"] >= 1024, 1.3)],
}
READ_SHARE = 0.85  # T <= 256: touched weight bytes at >= 85 % of the read bandwidth


def floors_us(row, ceilings):
    memory = row["touched_weight_bytes"] / (ceilings["read_gbps"] * 1e3)
    compute = row["tflops"] * row["median_us"] / ceilings["peak_tflops"]
    return memory, compute


def label(row):
    return f'{row["model"]} {row["routing"]} {row["tokens"]}'


def report(path):
    results = json.load(open(path))
    ceilings = results["ceilings"]
    rows = [r for r in results["rows"] if r["impl"] == "epifuse"]
    field = next((f for f in TARGETS if rows and f in rows[0]), None)
    if field is None:
        raise SystemExit(f"{path}: no epifuse row with a ratio to torch ({', '.join(TARGETS)})")
    print(f'## {path}\n\nread {ceilings["read_gbps"]:.0f} GB/s, peak {ceilings["peak_tflops"]:.0f} TFLOP/s '
          f'({ceilings["peak_source"]})\n')
    print("| point | epifuse µs | ratio | floor µs (memory / compute) | highest ratio |\n|---|---|---|---|---|")
    for r in rows:
        memory, compute = floors_us(r, ceilings)
        baseline = r["median_us"] * r[field]
        print(f'| {label(r)} | {r["median_us"]:.1f} | {r[field]:.3f} | {max(memory, compute):.1f} '
              f'({memory:.1f} / {compute:.1f}) | {baseline / max(memory, compute):.2f} |')
    print()
    for what, counts, needed in TARGETS[field]:
        points = [r for r in rows if counts(r)]
        met = [r for r in points if r[field] >= needed]
        out_of_reach = [r for r in points
                        if r["median_us"] * r[field] / max(floors_us(r, ceilings)) < needed]
        print(f"- {what}: met at {len(met)} of {len(points)}; no kernel can reach it at {len(out_of_reach)}: "
              + (", ".join(label(r) for r in out_of_reach) or "none"))
    small = [r for r in rows if r["tokens"] <= 256]
    if small:
        met = [r for r in small if r["pct_of_read_bw"] >= 100 * READ_SHARE]
        # The read share is the memory floor over the time; it cannot pass the memory floor over the floor.
        out_of_reach = [r for r in small if floors_us(r, ceilings)[0] < READ_SHARE * max(floors_us(r, ceilings))]
        print(f"- T <= 256 at >= {100 * READ_SHARE:.0f} % of the read bandwidth: met at {len(met)} of {len(small)}; "
              f"the compute floor forbids it at {len(out_of_reach)}: "
              + (", ".join(label(r) for r in out_of_reach) or "none"))
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="JSON of torch_bench.py moe or moe_layer")
    for path in parser.parse_args().results:
        report(path)


if __name__ == "__main__":
    main()
