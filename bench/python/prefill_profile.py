"""Where the prefill time goes: eager vs epifuse-patched Llama-3-8B shape (random weights), GPU
time per kernel name from torch.profiler, each prefill's CUDA-event time, and the SM clock and
power nvidia-smi samples while the prefills run.
  python bench/python/prefill_profile.py [TOKENS] [OUT.json] [--compile MODE] [--chunk-tokens C]
(from the repository root). --compile adds both models under torch.compile(mode=MODE);
--chunk-tokens adds a model patched with epifuse.patch(chunk_tokens=C)."""
import argparse
import copy
import csv
import json
import statistics
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, "bench/python")
import epifuse
from model_bench import LLAMA3_8B, _models

parser = argparse.ArgumentParser()
parser.add_argument("tokens", type=int, nargs="?", default=4096)
parser.add_argument("out", nargs="?", default="/tmp/prefill_profile.json")
parser.add_argument("--compile", dest="compile_mode")
parser.add_argument("--chunk-tokens", type=int)
parser.add_argument("--clock-prefills", type=int, default=20)
args = parser.parse_args()

eager, patched = _models()  # the model bench's models: same config, seed and patch
models = {"eager": eager, "epifuse": patched}
if args.chunk_tokens:
    chunked = copy.deepcopy(eager)
    epifuse.patch(chunked, chunk_tokens=args.chunk_tokens)
    models[f"epifuse_chunks{args.chunk_tokens}"] = chunked
if args.compile_mode:
    models["torch_compile"] = torch.compile(eager, mode=args.compile_mode)
    models["epifuse+torch_compile"] = torch.compile(patched, mode=args.compile_mode)
order = list(models) + [f"{name}#2" for name in models]  # each twice, in turn
ids = torch.randint(3, LLAMA3_8B["vocab_size"], (1, args.tokens), device="cuda")

# nvidia-smi samples every 20 ms for the whole run; each phase keeps the samples inside its loop.
smi_fields = "timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active"
# Into a file: a pipe nobody reads during the run fills and stops the sampling.
smi_log = tempfile.TemporaryFile(mode="w+")
smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={smi_fields}", "--format=csv,noheader,nounits", "-lms", "20"],
                       stdout=smi_log, text=True)
windows = {}
out = {"tokens": args.tokens, "compile_mode": args.compile_mode, "runs": {}}
with torch.inference_mode():
    for name in order:
        m = models[name.split("#")[0]]
        for _ in range(3):
            m(ids, use_cache=False)
        torch.cuda.synchronize()
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
        walls = []
        for _ in range(10):
            ev[0].record(); m(ids, use_cache=False); ev[1].record(); torch.cuda.synchronize()
            walls.append(ev[0].elapsed_time(ev[1]))
        walls.sort()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(3):
                m(ids, use_cache=False)
            torch.cuda.synchronize()
        start = time.time()
        for _ in range(args.clock_prefills):
            m(ids, use_cache=False)
        torch.cuda.synchronize()
        windows[name] = (start, time.time())
        per = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                k = e.name[:110]
                c, t = per.get(k, (0, 0.0))
                per[k] = (c + 1, t + e.device_time / 3.0)
        total = sum(t for _, t in per.values())
        print(f"== {name}: event median {walls[len(walls)//2]:.2f} ms, kernel sum {total/1e3:.2f} ms/prefill", flush=True)
        for k, (c, t) in sorted(per.items(), key=lambda kv: -kv[1][1])[:14]:
            print(f"  {t/1e3:8.3f} ms  {c//3:5d}x  {k}")
        out["runs"][name] = {"event_median_ms": walls[len(walls)//2],
                             "kernels": {k: [c // 3, t / 1e3] for k, (c, t) in per.items()}}
smi.terminate()
smi.wait()
smi_log.seek(0)
samples = []
for row in csv.reader(smi_log):
    try:
        stamp = time.mktime(time.strptime(row[0].strip().split(".")[0], "%Y/%m/%d %H:%M:%S")) + \
            float("0." + row[0].strip().split(".")[1])
        samples.append((stamp, float(row[1]), float(row[2]), float(row[3]), row[4].strip()))
    except (ValueError, IndexError):
        continue
print(f"== SM clock and power while {args.clock_prefills} prefills ran back to back (nvidia-smi, 20 ms)")
for name, (t0, t1) in windows.items():
    inside = [s for s in samples if t0 <= s[0] <= t1]
    if not inside:
        print(f"  {name}: no samples")
        continue
    reasons = sorted({s[4] for s in inside})
    summary = {"samples": len(inside), "sm_clock_mhz_median": statistics.median(s[1] for s in inside),
               "sm_clock_mhz_min": min(s[1] for s in inside), "power_w_median": statistics.median(s[2] for s in inside),
               "temperature_c_max": max(s[3] for s in inside), "event_reasons": reasons}
    out["runs"][name]["clocks"] = summary
    print(f"  {name}: {summary}")
json.dump(out, open(args.out, "w"), indent=1)
