#!/usr/bin/env bash
# Install everything and run every test: lint and type checks, jest, pytest, Galata (Debian's chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --test
. .venv/bin/activate

# Lint and jest run beside pytest (pytest mostly waits on its servers and clients; on 2 cores the
# three take about the time pytest takes alone). Their output is printed whole once each ends.
checks_log="$(mktemp)"
(
  set -e
  printf '\n== lint, format and type checks\n'
  bash scripts/lint.sh
  printf '\n== jest (contract, Dispatcher, Story validation)\n'
  npx jest --ci
) >"$checks_log" 2>&1 &
checks_pid=$!

printf '\n== pytest (server extension, MCP gateway, kernel-side Story)\n'
pytest_rc=0
python -m pytest -q || pytest_rc=$?

checks_rc=0
wait "$checks_pid" || checks_rc=$?
cat "$checks_log"
rm -f "$checks_log"
[ "$checks_rc" = 0 ] || { echo "molspace tests: lint or jest failed (above)" >&2; exit "$checks_rc"; }
[ "$pytest_rc" = 0 ] || { echo "molspace tests: pytest failed (above)" >&2; exit "$pytest_rc"; }

printf '\n== Galata (real server, kernel, Chromium, Mol*, MCP client)\n'
cd ui-tests
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 CI="${CI:-true}" npx playwright test
