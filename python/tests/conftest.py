"""Shared fixtures: a fresh seed per run (logged; EPIFUSE_SEED overrides), the GPU skip rule, and
the GPU tests' counts appended to $EPIFUSE_GPU_SUMMARY ("ran passed failed skipped [reason]", the
line scripts/test.sh sums with the C++ GPU suite's)."""
import os
import random

import pytest
import torch

import epifuse  # noqa: F401  (loads the op library before any test)


def _hopper_reason():
    if not torch.cuda.is_available():
        return "no CUDA device on this machine"
    major, minor = torch.cuda.get_device_capability()
    if (major, minor) != (9, 0):
        return f"epifuse's kernels are compiled for sm_90a; this GPU is sm_{major}{minor}"
    return None


HOPPER_SKIP_REASON = _hopper_reason()
requires_hopper = pytest.mark.skipif(HOPPER_SKIP_REASON is not None, reason=HOPPER_SKIP_REASON or "")


@pytest.fixture
def generator(request):
    seed = int(os.environ.get("EPIFUSE_SEED", random.SystemRandom().randrange(2**31)))
    print(f"\n{request.node.nodeid}: seed {seed} (EPIFUSE_SEED={seed} repeats it)")
    return torch.Generator().manual_seed(seed)


_gpu_outcomes = {"passed": 0, "failed": 0, "skipped": 0}


def _is_gpu_test(nodeid: str) -> bool:
    return nodeid.split("::")[0].endswith("_gpu.py")


def pytest_runtest_logreport(report):
    if not _is_gpu_test(report.nodeid):
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        outcome = "skipped" if report.skipped else "passed" if report.passed else "failed"
        _gpu_outcomes[outcome] += 1


def pytest_sessionfinish(session):
    path = os.environ.get("EPIFUSE_GPU_SUMMARY")
    if not path:
        return
    ran = _gpu_outcomes["passed"] + _gpu_outcomes["failed"]
    line = f"{ran} {_gpu_outcomes['passed']} {_gpu_outcomes['failed']} {_gpu_outcomes['skipped']}"
    if ran == 0 and HOPPER_SKIP_REASON:
        line += f" {HOPPER_SKIP_REASON}"
    with open(path, "a") as f:
        f.write(line + "\n")
