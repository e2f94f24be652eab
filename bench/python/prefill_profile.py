"""Where the prefill time goes: eager vs epifuse-patched Llama-3-8B shape (random weights), GPU
time per kernel name from torch.profiler, and each prefill's CUDA-event time.
  python bench/python/prefill_profile.py [TOKENS] [OUT.json]   (from the repository root)"""
import json
import sys

import torch

sys.path.insert(0, "bench/python")
from model_bench import LLAMA3_8B, _models

tokens = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
eager, patched = _models()  # the model bench's models: same config, seed and patch
ids = torch.randint(3, LLAMA3_8B["vocab_size"], (1, tokens), device="cuda")
out = {}
with torch.inference_mode():
    for name, m in (("eager", eager), ("epifuse", patched), ("eager2", eager), ("epifuse2", patched)):
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
        per = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                k = e.name[:110]
                c, t = per.get(k, (0, 0.0))
                per[k] = (c + 1, t + e.device_time / 3.0)
        total = sum(t for _, t in per.values())
        print(f"== {name}: event median {walls[len(walls)//2]:.2f} ms, kernel sum {total/1e3:.2f} ms/prefill")
        for k, (c, t) in sorted(per.items(), key=lambda kv: -kv[1][1])[:14]:
            print(f"  {t/1e3:8.3f} ms  {c//3:5d}x  {k}")
        out[name] = {"event_median_ms": walls[len(walls)//2], "kernels": {k: [c // 3, t / 1e3] for k, (c, t) in per.items()}}
json.dump(out, open(sys.argv[2] if len(sys.argv) > 2 else "/tmp/prefill_profile.json", "w"), indent=1)
