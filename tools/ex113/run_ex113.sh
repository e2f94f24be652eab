#!/usr/bin/env bash
# Times CUTLASS's public example 113 (Hopper GEMM with fused gated activation, bf16 build) at the
# given shapes and writes a results JSON comparable to epifuse-bench gated rows. The binary is built
# from a fetched copy of the CUTLASS release by tools/ex113/build_ex113.sh and is never committed.
#   tools/ex113/run_ex113.sh EX113_BINARY OUT.json MxNxK [MxNxK ...]
# Shapes use epifuse's gated convention: M tokens, N the gated output width (one projection, e.g.
# 28672 for Llama-3-70B), K the hidden size. The example puts the weights on the MMA's M side and
# counts gate and up rows there, so it runs as --m=2N --n=M --k=K --l=1: A = [W_up; W_gate]
# (2N x K, K-major), B = X (M x K, K-major), output (M x N, N contiguous) = up * silu(gate).
# Each shape's first run checks the fused output against the example's unfused path (the same
# CUTLASS GEMM writing bf16, then its activation kernel; relative tolerance 0.2); the check costs
# about one extra GEMM. The example times WARMUP calls, then ITERS calls between one pair of
# cudaEvents, and prints the mean; median_us is the median of those means over REPS processes.
# It also times its unfused path and the plain GEMM (2N x M x K); those go in each row too.
# Environment: EX113_WARMUP (100), EX113_ITERS (200), EX113_REPS (1), EX113_VERIFY (1; 0 skips the
# check), EX113_TIMEOUT (600 s per process), EX113_ARGS (extra example options, e.g. --raster=M).
# Full logs go to OUT.logs/. Exits non-zero when a run fails (no GPU, not Hopper, bad shape) or
# when a check fails (the JSON is still written then).
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 EX113_BINARY OUT.json MxNxK [MxNxK ...]" >&2
  exit 2
fi
bin=$1
out=$2
shift 2
[ -x "$bin" ] || { echo "error: $bin is not an executable (build it with tools/ex113/build_ex113.sh)" >&2; exit 2; }
for s in "$@"; do
  [[ $s =~ ^[1-9][0-9]*x[1-9][0-9]*x[1-9][0-9]*$ ]] || { echo "error: shape '$s' is not MxNxK" >&2; exit 2; }
done

warmup=${EX113_WARMUP:-100}
iters=${EX113_ITERS:-200}
reps=${EX113_REPS:-1}
verify=${EX113_VERIFY:-1}
limit=${EX113_TIMEOUT:-600}
read -r -a extra <<< "${EX113_ARGS:-}"
logs=${out%.json}.logs
mkdir -p "$logs"
rm -f "$logs"/*.txt

py=$(cat <<'PY'
import json, math, os, re, statistics, subprocess, sys, time

def parse(path, m, n, k):
    """Parse one log of the example (run with --csv=true); returns a dict or raises ValueError."""
    text = open(path, errors="replace").read()
    res = {"times_ms": {}}
    for line in text.splitlines():
        mt = re.match(r"^(Fused|Unfused|GEMM only),([0-9.eE+-]+),([0-9.eE+-]+)$", line.strip())
        if mt:
            res["times_ms"][mt.group(1)] = float(mt.group(2))
            continue
        for key, pat in (("problem", r"^Problem Size: (\S+)"), ("types", r"^Data types: (.+)$"),
                         ("activation", r"^Activation function: (\S+)"),
                         ("schedule", r"^Kernel schedule: (\S+)"), ("tile", r"^GEMM tile shape: (\S+)"),
                         ("cluster", r"^Cluster shape: (\S+)"), ("cutlass", r"^ex113-cutlass: (.+)$"),
                         ("config", r"^ex113-config: (.+)$"), ("disposition", r"^Disposition: (\S+)")):
            mt = re.match(pat, line)
            if mt:
                res[key] = mt.group(1).strip()
    tail = "\n".join(text.splitlines()[-8:])
    if "Fused" not in res["times_ms"]:
        raise ValueError("no timing in the output; last lines:\n" + tail)
    want = f"{2 * n}x{m}x{k}x1"
    if res.get("problem") != want:
        raise ValueError(f"the example ran problem {res.get('problem')}, expected {want}")
    if res.get("types") != "bf16 x bf16 -> fp32 + bf16 -> bf16":
        raise ValueError(f"not the bf16 build: data types '{res.get('types')}'")
    return res

def check(path, m, n, k, rc):
    try:
        res = parse(path, m, n, k)
    except (OSError, ValueError) as e:
        print(f"error: ex113 failed at {m}x{n}x{k} (exit {rc}, log {path}): {e}", file=sys.stderr)
        return 1
    if rc != 0 and res.get("disposition") != "Failed":
        print(f"error: ex113 exited {rc} at {m}x{n}x{k} (log {path})", file=sys.stderr)
        return 1
    f = res["times_ms"]["Fused"] * 1e3
    print(f"  {m}x{n}x{k}: fused {f:.1f} us, check {res.get('disposition', 'skipped')}", file=sys.stderr)
    return 0

def build(out, logs, binary, reps, warmup, iters, shapes):
    rows, failed = [], False
    for s in shapes:
        m, n, k = map(int, s.split("x"))
        runs = [parse(os.path.join(logs, f"{s}.rep{r}.txt"), m, n, k) for r in range(1, reps + 1)]
        first = runs[0]
        med = lambda key: round(statistics.median(r["times_ms"][key] for r in runs if key in r["times_ms"]) * 1e3, 3)
        disp = first.get("disposition")
        chk = "pass" if disp == "Passed" else "fail" if disp == "Failed" else "skipped"
        if chk == "fail":
            failed = True
            print(f"error: check failed at {s} (log {logs}/{s}.rep1.txt)", file=sys.stderr)
        us = med("Fused")
        act = {"SiLU": "swiglu", "ReLU": "reglu", "None": "bilinear"}.get(first.get("activation"), first.get("activation"))
        row = {
            "impl": "cutlass_ex113", "op": "gated", "M": m, "N": n, "K": k, "dtype": "bf16",
            "epilogue": act, "median_us": us, "check": chk,
            "kernel": (f"cutlass ex113 {first.get('schedule', '?')} {first.get('tile', '?')} "
                       f"cluster {first.get('cluster', '?')} weights-on-M (CUTLASS {first.get('cutlass', 'unknown')})"),
            "timing_method": (f"example's run_benchmark: {warmup} warm-up calls, then one cudaEvent pair "
                              f"around {iters} back-to-back calls (each Gemm::initialize on the host, then "
                              f"the launch), mean per call; median over {reps} process(es)"),
            "samples": reps, "runs_us": [round(r["times_ms"]["Fused"] * 1e3, 3) for r in runs],
            "tflops": round(2.0 * m * (2 * n) * k / (us * 1e-6) / 1e12, 2),
            "unfused_us": med("Unfused"), "gemm_only_us": med("GEMM only"),
            "ex113_args": f"--m={2 * n} --n={m} --k={k} --l=1",
            "ex113_config": first.get("config", ""),
        }
        rows.append(row)
    gpu = ""
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except Exception:
        pass
    doc = {"tool": "tools/ex113/run_ex113.sh", "binary": os.path.abspath(binary), "gpu": gpu,
           "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "rows": rows}
    with open(out, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"wrote {out} ({len(rows)} rows)", file=sys.stderr)
    return 1 if failed else 0

mode = sys.argv[1]
if mode == "check":
    m, n, k = map(int, sys.argv[3].split("x"))
    sys.exit(check(sys.argv[2], m, n, k, int(sys.argv[4])))
if mode == "json":
    sys.exit(build(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6], sys.argv[7], sys.argv[8:]))
sys.exit(f"unknown mode {mode}")
PY
)

for s in "$@"; do
  IFS=x read -r m n k <<< "$s"
  for ((r = 1; r <= reps; r++)); do
    v=false
    [ "$r" -eq 1 ] && [ "$verify" = 1 ] && v=true
    log=$logs/$s.rep$r.txt
    rc=0
    timeout "$limit" "$bin" --m=$((2 * n)) --n="$m" --k="$k" --l=1 --alpha=1 --beta=0 \
      --warmup="$warmup" --iterations="$iters" --verify="$v" --csv=true "${extra[@]}" > "$log" 2>&1 || rc=$?
    python3 -c "$py" check "$log" "$s" "$rc"
  done
done
python3 -c "$py" json "$out" "$logs" "$bin" "$reps" "$warmup" "$iters" "$@"
