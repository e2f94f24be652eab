"""Shared fixtures: a fresh seed per run (logged; EPIFUSE_SEED overrides) and the GPU skip rule."""
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
