#!/usr/bin/env bash
# Lint, format and type checks that CI runs (scripts/test.sh); each fails the run on a finding.
#   bash scripts/lint.sh          # check
#   bash scripts/lint.sh --fix    # apply ruff's and eslint's fixes and formatting, then check
# Configuration: [tool.ruff] and [tool.mypy] in pyproject.toml; .prettierrc.json; eslint.config.mjs (TypeScript,
# the layer rule of docs/architecture.md, "Page"); tsconfig.test.json (specs type-checked too);
# .stylelintrc.json (stylelint-config-standard; no-descending-specificity off: rules are ordered by
# state on purpose, e.g. :disabled after :hover, as JupyterLab's own stylesheets do).
# .pre-commit-config.yaml runs the same checks on staged files for those who want it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] && . .venv/bin/activate

if [ "${1:-}" = "--fix" ]; then
  ruff check --fix .
  ruff format .
  npx eslint --fix src schema
  npx prettier --write --log-level warn 'src/**/*.ts'
  npx stylelint --fix 'style/**/*.css'
fi

printf '\n== ruff check (Python lint)\n'
ruff check .
printf '\n== ruff format --check (Python format)\n'
ruff format --check .
printf '\n== mypy (Python types: molspace/)\n'
mypy
printf '\n== tsc (TypeScript types: src/ with its specs)\n'
npx tsc -p tsconfig.test.json
printf '\n== prettier --check (TypeScript format: src/, .prettierrc.json)\n'
npx prettier --check --log-level warn 'src/**/*.ts'
printf '\n== eslint (TypeScript lint; imports go down the layers, no circles)\n'
npx eslint --max-warnings 0 src schema
printf '\n== stylelint (CSS: style/)\n'
npx stylelint 'style/**/*.css'
