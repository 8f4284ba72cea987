#!/usr/bin/env bash
# Build a JupyterLite site (Pyodide kernel) with molspace, served entirely from its own folder.
#   bash scripts/build-lite.sh OUT_DIR [CONTENTS ...]
# OUT_DIR is removed and built clean (an incremental rebuild once dropped the local pyodideUrl);
# CONTENTS are files or folders that the site's file browser shows (jupyter lite build --contents).
#
# What goes in (downloads cached under .lite-cache/, from PyPI and the npm registry only):
# - jupyterlite-core and jupyterlite-pyodide-kernel (pinned), in their own venv .lite-cache/venv,
#   with jupyterlab_widgets (the widget manager's lab extension) and jupyter_server (it indexes contents);
# - molspace's prebuilt lab extension, molspace/labextension (built by scripts/install.sh);
# - Pyodide itself, hosted in the site: the runtime from npm (pyodide@PYODIDE_VERSION) and the
#   pure-Python wheels of its lock file that the kernel and ipywidgets load (micropip, IPython and
#   its dependencies, ...) from PyPI; the lock's sha256 of each is set to the file shipped;
# - piplite wheels the kernel installs from (no PyPI fallback): molspace's wheel (dist/molspace-*.whl,
#   or MOLSPACE_WHEEL), ipywidgets, comm, jupyterlab_widgets.
# In a notebook of the site: %pip install ipywidgets, then %pip install --no-deps molspace (the
# server's dependencies, mcp, jsonschema's rpds-py, ..., do not install in Pyodide and the kernel
# side does not need them).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

JUPYTERLITE_VERSION=0.8.6
PYODIDE_VERSION=314.0.6
IPYWIDGETS_VERSION=8.1.9
COMM_VERSION=0.2.3
JUPYTERLAB_WIDGETS_VERSION=3.0.17
# Lock entries (and their lock dependencies) the site hosts: what the kernel loads (micropip,
# IPython for pyodide_kernel and ipywidgets) and its completer (jedi).
PYODIDE_SEEDS="micropip ipython traitlets packaging typing-extensions jedi pygments"

out="${1:?usage: bash scripts/build-lite.sh OUT_DIR [CONTENTS ...]}"
shift
case "$out" in /*) ;; *) out="$root/$out" ;; esac

cache="$root/.lite-cache"
mkdir -p "$cache"
step() { printf '\n== lite: %s\n' "$*"; }

[ -f molspace/labextension/package.json ] \
  || { echo "build-lite: molspace/labextension is not built (run bash scripts/install.sh first)" >&2; exit 1; }
wheel="${MOLSPACE_WHEEL:-$(ls -t dist/molspace-*.whl 2>/dev/null | head -n1 || true)}"
[ -n "$wheel" ] && [ -f "$wheel" ] \
  || { echo "build-lite: no molspace wheel (python -m build --wheel --outdir dist, or set MOLSPACE_WHEEL)" >&2; exit 1; }
wheel="$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")"

step "jupyterlite $JUPYTERLITE_VERSION (.lite-cache/venv)"
pins=("jupyterlite-core==$JUPYTERLITE_VERSION" "jupyterlite-pyodide-kernel==$JUPYTERLITE_VERSION"
  "jupyterlab_widgets==$JUPYTERLAB_WIDGETS_VERSION" "jupyter_server==2.17.0")
if ! "$cache/venv/bin/python" -m pip show -q "${pins[@]%%==*}" >/dev/null 2>&1 \
  || [ "$(cat "$cache/venv/pins" 2>/dev/null)" != "${pins[*]}" ]; then
  rm -rf "$cache/venv"
  python3 -m venv "$cache/venv"
  "$cache/venv/bin/python" -m pip install -q "${pins[@]}"
  echo "${pins[*]}" >"$cache/venv/pins"
fi

step "Pyodide $PYODIDE_VERSION, hosted in the site"
dl="$cache/downloads"
mkdir -p "$dl/wheels"
tgz="$dl/pyodide-$PYODIDE_VERSION.tgz"
if [ ! -f "$tgz" ]; then
  (cd "$dl" && npm pack -q "pyodide@$PYODIDE_VERSION" >/dev/null)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pyodide"
tar -xzf "$tgz" -C "$work"
cp "$work"/package/pyodide.* "$work"/package/python_stdlib.zip "$work"/package/pyodide-lock.json "$work/pyodide/"
"$cache/venv/bin/python" - "$work/pyodide" "$dl/wheels" $PYODIDE_SEEDS <<'PY'
"""Fetch the lock's pure-Python wheels that the seeds need from PyPI; point the lock at them."""
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

site, wheels, seeds = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
lock_path = site / "pyodide-lock.json"
lock = json.loads(lock_path.read_text())
packages = lock["packages"]
python = lock["info"]["python"].rsplit(".", 1)[0]
need, todo = set(), list(seeds)
while todo:
    name = todo.pop().lower().replace("_", "-")
    if name in need:
        continue
    if name not in packages:
        sys.exit(f"build-lite: {name!r} is not in Pyodide's lock")
    need.add(name)
    todo.extend(packages[name].get("depends", []))
for name in sorted(need):
    entry = packages[name]
    file_name = entry["file_name"]
    if not file_name.endswith("-none-any.whl"):
        sys.exit(f"build-lite: {file_name} is not a pure-Python wheel; only those come from PyPI")
    cached = wheels / file_name
    if not cached.exists():
        spec = f"{file_name.split('-')[0]}=={entry['version']}"
        tmp = wheels / "tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
             "--python-version", python, "-d", str(tmp), spec],
            check=True,
        )
        (got,) = tmp.glob("*.whl")
        got.rename(cached)
        shutil.rmtree(tmp)
    shutil.copy(cached, site / file_name)
    entry["sha256"] = hashlib.sha256(cached.read_bytes()).hexdigest()
lock_path.write_text(json.dumps(lock))
print(f"build-lite: {len(need)} lock packages hosted: {', '.join(sorted(need))}")
PY
# The archive --pyodide takes (Python's tarfile: no bzip2 binary needed).
"$cache/venv/bin/python" -c 'import sys, tarfile; tarfile.open(sys.argv[1], "w:bz2").add(sys.argv[2], "pyodide")' \
  "$work/pyodide.tar.bz2" "$work/pyodide"

step "piplite wheels"
for spec in "ipywidgets==$IPYWIDGETS_VERSION" "comm==$COMM_VERSION" "jupyterlab_widgets==$JUPYTERLAB_WIDGETS_VERSION"; do
  name="${spec%%==*}"
  ls "$dl/wheels/piplite/${name}-${spec##*==}-"*.whl >/dev/null 2>&1 \
    || "$cache/venv/bin/python" -m pip download -q --no-deps --only-binary=:all: -d "$dl/wheels/piplite" "$spec"
done
piplite=("$dl"/wheels/piplite/*.whl "$wheel")

step "jupyter lite build -> $out"
rm -rf "$out"
lite="$work/lite"
mkdir -p "$lite"
# The kernel installs only from the site's own wheels: no PyPI fallback.
cat >"$lite/jupyter-lite.json" <<'JSON'
{
  "jupyter-lite-schema-version": 0,
  "jupyter-config-data": {
    "litePluginSettings": {
      "@jupyterlite/pyodide-kernel-extension:kernel": { "disablePyPIFallback": true }
    }
  }
}
JSON
contents=()
for c in "$@"; do contents+=(--contents "$(cd "$(dirname "$c")" && pwd)/$(basename "$c")"); done
(
  cd "$lite"
  "$cache/venv/bin/jupyter" lite build --no-sourcemaps --output-dir "$out" \
    --pyodide "$work/pyodide.tar.bz2" \
    --LiteBuildConfig.federated_extensions="$root/molspace/labextension" \
    $(printf -- '--piplite-wheels=%s ' "${piplite[@]}") "${contents[@]}"
)
grep -q '"pyodideUrl": *"\./static/pyodide/pyodide.mjs"' "$out/jupyter-lite.json" \
  || { echo "build-lite: the site's jupyter-lite.json does not load the local Pyodide" >&2; exit 1; }
echo "build-lite: $(du -sb "$out" | cut -f1) bytes in $out"
