#!/usr/bin/env bash
# Install everything and run every test: lint and type checks, jest, pytest, Galata (Debian's chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --test
. .venv/bin/activate

printf '\n== lint, format and type checks\n'
bash scripts/lint.sh

printf '\n== jest (contract, Dispatcher, Story validation)\n'
npx jest --ci

printf '\n== pytest (server extension, MCP gateway, kernel-side Story)\n'
python -m pytest -q

printf '\n== Galata (real server, kernel, Chromium, Mol*, MCP client)\n'
cd ui-tests
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 CI="${CI:-true}" npx playwright test

printf '\n== JupyterLite (the site scripts/build-lite.sh builds, Pyodide kernel, served locally, Chromium)\n'
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 CI="${CI:-true}" npx playwright test -c lite.config.js
