#!/usr/bin/env bash
# The test command: set up, build, run every test. GPU tests skip, saying why, without a Hopper
# GPU; the last line says how many GPU tests ran, passed and were skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
cd "$root/build"
summary="$root/build/gpu-test-summary.txt"
rm -f "$summary"
status=0
ctest --output-on-failure "$@" || status=$?
if [ -s "$summary" ]; then
  awk '{ ran += $1; passed += $2; failed += $3; skipped += $4; if (NF > 4) { $1 = $2 = $3 = $4 = ""; why = $0 } }
       END {
         line = sprintf("GPU tests: %d ran, %d passed, %d failed, %d skipped", ran, passed, failed, skipped)
         if (ran == 0) { sub(/^ +/, "", why); line = line " (all skipped: " why ")" }
         print line
       }' "$summary"
else
  echo "GPU tests: none ran (ctest did not run the GPU test binary)"
fi
exit "$status"
