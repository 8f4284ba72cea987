#!/usr/bin/env bash
# Run every molspace benchmark and write docs/benchmarks.md.
#
#   bash bench/run.sh            # all four
#   bash bench/run.sh mcp_roundtrip propagation   # some of them
#
# Each benchmark starts (and stops) its own Jupyter server(s) on ports 8899 /
# 8898 (not 8888, which the tests use) with a temp root dir, drives Debian's
# Chromium with Playwright and writes bench/results/<name>.json; report.mjs
# turns the results into docs/benchmarks.md. Exits 0 when the benchmarks ran,
# whether or not an aim was met (misses are reported, never failed on).
# Sizes: MOLSPACE_BENCH_MCP_N, MOLSPACE_BENCH_CONTROL_N, MOLSPACE_BENCH_FRAME_N,
# MOLSPACE_BENCH_STARTUP_N, MOLSPACE_BENCH_PROP_N.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cd "$here"

if [ -f "$root/.venv/bin/activate" ]; then
  # shellcheck disable=SC1091
  . "$root/.venv/bin/activate"
fi
command -v jupyter >/dev/null || { echo "jupyter not found: run scripts/test.sh (or activate the venv) first" >&2; exit 2; }
[ -x /usr/bin/chromium ] || [ -n "${MOLSPACE_BENCH_CHROMIUM:-}" ] || { echo "Debian's chromium is needed (apt-get install chromium)" >&2; exit 2; }
[ -d "$root/molspace/labextension" ] || { echo "molspace's labextension is not built: npm run build" >&2; exit 2; }
if [ ! -d node_modules/playwright ] || [ ! -d node_modules/esbuild ] || [ ! -d node_modules/@modelcontextprotocol/sdk ]; then
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund || exit 2
fi
# ../ui-tests/harness.js (the MCP client and notebook helpers shared with the Galata tests) loads ui-tests' SDK.
if [ ! -d "$root/ui-tests/node_modules/@modelcontextprotocol/sdk" ]; then
  (cd "$root/ui-tests" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund) || exit 2
fi

benches=("$@")
[ ${#benches[@]} -eq 0 ] && benches=(mcp_roundtrip first_frame lab_startup propagation)
mkdir -p results
failed=()
for b in "${benches[@]}"; do
  echo "=== $b ==="
  rm -f "results/$b.json"
  if ! node "$b.mjs" 2>&1 | tee "results/$b.log"; then
    failed+=("$b")
  fi
done
node report.mjs || exit 2
if [ ${#failed[@]} -gt 0 ]; then
  echo "benchmarks that did not complete: ${failed[*]} (see bench/results/*.log)" >&2
  exit 1
fi
exit 0
