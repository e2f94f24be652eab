"""Prints the A/B of this folder: epifuse-bench moe --quick per model, 07a00d2's binaries ("old")
and 9204719's ("new", the grouped launches on side streams) in turn in one device call (H200)."""
import json
import math
from pathlib import Path

HERE = Path(__file__).parent


def main() -> None:
    ratios = []
    print(f"{'model':15s} {'routing':8s} {'T':>5s} {'old us':>9s} {'new us':>9s} {'new/old':>8s} "
          f"{'loop/old':>9s} {'loop/new':>9s}")
    for model in ["qwen2-57b-a14b", "mixtral-8x7b", "deepseek-v3"]:
        times = {}
        for build in ["old", "new"]:
            for r in json.loads((HERE / f"bench-moe-{build}-{model}.json").read_text())["rows"]:
                times.setdefault((r["routing"], r["tokens"]), {})[(build, r["impl"])] = r["median_us"]
        for (routing, tokens), t in sorted(times.items()):
            if ("old", "epifuse") not in t or ("new", "epifuse") not in t:
                continue
            old, new = t[("old", "epifuse")], t[("new", "epifuse")]
            ratios.append(new / old)
            print(f"{model:15s} {routing:8s} {tokens:5d} {old:9.1f} {new:9.1f} {new / old:8.3f} "
                  f"{t[('old', 'cublaslt_loop+act')] / old:9.3f} {t[('new', 'cublaslt_loop+act')] / new:9.3f}")
    mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"{len(ratios)} points: new/old geometric mean {mean:.3f}, {min(ratios):.3f}-{max(ratios):.3f}")


if __name__ == "__main__":
    main()
