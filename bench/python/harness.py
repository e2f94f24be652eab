"""Timing and results for the Python benchmark, in epifuse-bench's JSON schema: CUDA events around
each call, warm-up, implementations interleaved round by round, operands rotated through more memory
than L2 holds, medians and percentiles; the header carries the GPU, driver, commit and ceilings."""
import datetime
import os
import statistics
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Dict, List

import torch


@dataclass
class Timing:
    median_us: float
    p10_us: float
    p90_us: float
    samples: int


def _percentile(sorted_values: List[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def time_interleaved(calls: Dict[str, Callable[[int], object]], rounds: int = 50, warmup: int = 5) -> Dict[str, Timing]:
    """Times each call(i) (i picks the rotated operand set) once per round, in turn, with CUDA events."""
    for name, call in calls.items():
        for i in range(warmup):
            call(i)
    torch.cuda.synchronize()
    events = {name: [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                     for _ in range(rounds)] for name in calls}
    for r in range(rounds):
        for name, call in calls.items():
            start, end = events[name][r]
            start.record()
            call(r)
            end.record()
    torch.cuda.synchronize()
    result = {}
    for name in calls:
        values = sorted(start.elapsed_time(end) * 1000.0 for start, end in events[name])
        result[name] = Timing(statistics.median(values), _percentile(values, 0.1), _percentile(values, 0.9), len(values))
    return result


def rotation_count(bytes_per_set: int, cap: int = 16) -> int:
    """Operand sets to rotate through so that together they exceed twice the L2 cache."""
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    return max(1, min(cap, -(-2 * l2 // max(1, bytes_per_set))))


def ceilings() -> dict:
    """Measured here: streaming read and copy bandwidth over 4 GiB, and cuBLAS's bf16 GEMM peak."""
    big = torch.empty(2**31, device="cuda", dtype=torch.bfloat16)
    big.fill_(1.0)
    dst = torch.empty_like(big)

    def best_us(fn, reps=5):
        times = []
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)
        return min(times)

    nbytes = big.numel() * big.element_size()
    read_gbps = nbytes / best_us(lambda: big.sum(dtype=torch.float32)) / 1e3
    copy_gbps = 2 * nbytes / best_us(lambda: dst.copy_(big)) / 1e3
    del big, dst
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    peak = 2 * 8192**3 / best_us(lambda: a @ a) / 1e6
    return {"read_gbps": read_gbps, "copy_gbps": copy_gbps, "peak_tflops": peak,
            "peak_source": "torch.mm bf16 8192^3 (cuBLAS), best of 5"}


def header(command: str) -> dict:
    props = torch.cuda.get_device_properties(0)
    driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                            capture_output=True, text=True).stdout.strip().splitlines()
    return {
        "gpu": props.name,
        "driver": driver[0] if driver else "unknown",
        "cuda": f"torch {torch.__version__}, CUDA {torch.version.cuda}",
        "commit": os.environ.get("EPIFUSE_COMMIT", "unknown"),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command,
        "device": {"compute_capability": f"{props.major}.{props.minor}", "sm_count": props.multi_processor_count,
                   "memory_bytes": props.total_memory, "l2_bytes": props.L2_cache_size},
    }


def cpu_us_per_call(call: Callable[[], object], calls: int = 10000) -> Dict[str, float]:
    """Host time per call: the mean over each batch of 1,000 back-to-back calls, then the median and
    p90 over the batches. The shapes are tiny, so the GPU keeps up and the loop measures the host."""
    for _ in range(100):
        call()
    torch.cuda.synchronize()
    per_batch = []
    batch = 1000
    for _ in range(calls // batch):
        start = time.perf_counter_ns()
        for _ in range(batch):
            call()
        per_batch.append((time.perf_counter_ns() - start) / batch / 1000.0)
        torch.cuda.synchronize()
    per_batch.sort()
    return {"cpu_us_median": statistics.median(per_batch), "cpu_us_mean": statistics.fmean(per_batch),
            "cpu_us_p90": _percentile(per_batch, 0.9), "calls": calls}
