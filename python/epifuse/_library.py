"""Loads libepifuse_torch.so, the ops' C++ half, into torch's dispatcher (once per process)."""
import os

import torch

_LIBRARY_NAME = "libepifuse_torch.so"


def library_path() -> str:
    """The op library beside this file (an installed wheel, or the CMake build tree's package
    folder), or the file $EPIFUSE_TORCH_LIBRARY names."""
    override = os.environ.get("EPIFUSE_TORCH_LIBRARY")
    if override:
        return override
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), _LIBRARY_NAME)


def load() -> None:
    if hasattr(torch.ops.epifuse, "gemm"):
        return
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(
            f"epifuse: the op library {path} is missing; install the package with "
            "`pip install --no-build-isolation .` or set EPIFUSE_TORCH_LIBRARY to a built "
            f"{_LIBRARY_NAME}")
    torch.ops.load_library(path)
