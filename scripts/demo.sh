#!/usr/bin/env bash
# Install molspace and open JupyterLab on the demo notebook.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
. .venv/bin/activate
cd examples
root_flag=(); [ "$(id -u)" = 0 ] && root_flag=(--allow-root)
exec jupyter lab "${root_flag[@]}" demo.ipynb "$@"
