#!/usr/bin/env bash
# Install everything and run every test: lint and type checks, jest, pytest, Galata (Debian's chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
# The test artefacts (dist/ and .lite-cache/, minutes of pip and npm work that only the release,
# Binder and JupyterLite tests use) are built later, beside the UI tests (below).
bash scripts/install.sh --test --later
. .venv/bin/activate
# Each phase says when it starts (seconds since this script began), so a slow phase shows in CI's log.
phase() { printf '\n== %s  [%ss]\n' "$*" "$SECONDS"; }

phase 'lint, format and type checks'
bash scripts/lint.sh

phase 'jest (contract, Dispatcher, Story validation)'
npx jest --ci

# The test artefacts, then the release and Binder tests, which build and install molspace from
# scratch in fresh environments (minutes of npm, webpack and pip work), run beside Galata at the
# lowest CPU priority, using the time Galata waits on its server, kernel and browser; their output
# and result come after it. The JupyterLite test waits for the artefacts ($artefacts_rc).
FRESH_ENV_TESTS=(tests/test_release.py tests/test_binder.py)

phase 'pytest (server extension, MCP gateway, kernel-side Story)'
python -m pytest -q --durations=15 "${FRESH_ENV_TESTS[@]/#/--ignore=}"

phase 'test artefacts, then the release and Binder tests (started beside Galata, niced; reported after it)'
fresh_log="$(mktemp)"
artefacts_rc="$(mktemp -u)"
nice -n 19 bash -c '
  bash scripts/install.sh --artefacts; rc=$?; echo "$rc" >"$1"; shift
  [ "$rc" = 0 ] || { echo "the test artefacts were not built (exit $rc; the install output is above)"; exit "$rc"; }
  exec python -m pytest -q -p no:cacheprovider "$@"' _ "$artefacts_rc" "${FRESH_ENV_TESTS[@]}" >"$fresh_log" 2>&1 &
fresh_pid=$!
trap 'kill "$fresh_pid" 2>/dev/null || true' EXIT

phase 'Galata (real server, kernel, Chromium, Mol*, MCP client)'
cd ui-tests
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 CI="${CI:-true}" npx playwright test

phase 'JupyterLite (the site scripts/build-lite.sh builds, Pyodide kernel, served locally, Chromium)'
while [ ! -s "$artefacts_rc" ] && kill -0 "$fresh_pid" 2>/dev/null; do sleep 2; done
[ "$(cat "$artefacts_rc" 2>/dev/null)" = 0 ] \
  || { cat "$fresh_log"; echo "the test artefacts were not built (their output is above)" >&2; exit 1; }
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 CI="${CI:-true}" npx playwright test -c lite.config.js

phase 'pytest, release and Binder tests (their output)'
fresh_rc=0
wait "$fresh_pid" || fresh_rc=$?
cat "$fresh_log"
rm -f "$fresh_log"
[ "$fresh_rc" = 0 ] || { echo "the release and Binder tests failed (exit $fresh_rc; their output is above)" >&2; exit 1; }
phase 'all passed'
