#!/usr/bin/env bash
# PNG plots of an epifuse-bench results JSON: installs a pinned matplotlib into .deps/plot-venv once,
# then runs tools/plot_results.py.   scripts/plot.sh bench/results/gated-nvidia-h200.json [--out DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.deps/plot-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import matplotlib" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "matplotlib==3.9.2"
fi
exec "$venv/bin/python" "$root/tools/plot_results.py" "$@"
