#!/usr/bin/env bash
# Installs what the build needs, pinned: Debian dev packages (when missing), the CUTLASS headers
# from PyPI into .deps/ (ignored), and a Python with torch for the torch ops (.deps/python, from
# python/requirements-test.txt; EPIFUSE_TORCH=0 skips it). Idempotent; safe to run on every build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

cutlass_version=4.2.0.0
cutlass_sha256=f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6
debian_packages=(libgtest-dev nlohmann-json3-dev libcli11-dev libfmt-dev)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

deps="$root/.deps"
stamp="$deps/cutlass-$cutlass_version.ok"
if [ ! -f "$stamp" ]; then
  echo "setup: installing nvidia-cutlass==$cutlass_version into $deps"
  rm -rf "$deps/cutlass" && mkdir -p "$deps"
  req="$deps/cutlass-requirements.txt"
  echo "nvidia-cutlass==$cutlass_version --hash=sha256:$cutlass_sha256" > "$req"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --require-hashes \
    --target "$deps/cutlass" -r "$req"
  test -f "$deps/cutlass/cutlass_library/source/include/cute/tensor.hpp"
  touch "$stamp"
fi

if [ "${EPIFUSE_TORCH:-1}" != "0" ]; then
  venv="$deps/python"
  requirements="$root/python/requirements-test.txt"
  venv_stamp="$venv/requirements.$(sha256sum "$requirements" | cut -c1-16).ok"
  if [ ! -f "$venv_stamp" ]; then
    echo "setup: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv (torch is a CUDA build of a few GB)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    touch "$venv_stamp"
  fi
fi
