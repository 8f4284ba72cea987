#!/usr/bin/env bash
# Install molspace and open JupyterLab on the demo notebook.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
. .venv/bin/activate
# Save widget state in notebooks (a saved Story reopens at its step), unless already configured.
settings="$(python -c 'import sys; print(sys.prefix)')/share/jupyter/lab/settings"
[ -f "$settings/overrides.json" ] || { mkdir -p "$settings"; cp binder/overrides.json "$settings/overrides.json"; }
cd examples
root_flag=(); [ "$(id -u)" = 0 ] && root_flag=(--allow-root)
exec jupyter lab "${root_flag[@]}" demo.ipynb "$@"
