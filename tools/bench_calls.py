"""Shared by the results folders' summary scripts: a bench JSON read (plain or .xz), its rows by
call, and the geometric mean."""
import json
import lzma
import math


def load(path):
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def calls(doc):
    """Rows by (M, N, K), then by impl (a sweep row by its kernel name: with splits or a stream-K
    mode, not with raster or swizzle)."""
    by = {}
    for r in doc["rows"]:
        name = r["impl"] if r["impl"] != "sweep" else r["kernel"]
        by.setdefault((r["M"], r["N"], r["K"]), {})[name] = r
    return by


def gmean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
