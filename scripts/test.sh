#!/usr/bin/env bash
# The test command: set up, build, run every test. GPU tests skip, saying why, without a Hopper GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
cd "$root/build"
ctest --output-on-failure "$@"
