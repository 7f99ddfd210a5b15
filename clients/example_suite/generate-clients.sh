#!/usr/bin/env bash
# The three Python packages the example suite imports, generated from the
# committed documents with openapi-python-client (as scripts/test.sh does):
# platform_client, billing_client and test_client, under DIR.
#
#   pip install openapi-python-client==0.29.1 pytest==8.3.5
#   clients/example_suite/generate-clients.sh /tmp/switchboard-clients
#   SWITCHBOARD_URL=http://127.0.0.1:8080 PYTHONPATH=/tmp/switchboard-clients pytest clients/example_suite
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: generate-clients.sh DIR}
mkdir -p "$OUT"
for pair in platform-v4:platform_client partner-billing-v1:billing_client test-v1:test_client; do
  openapi-python-client generate --path "$ROOT/openapi/${pair%%:*}.json" --config "$ROOT/clients/python-client.yaml" \
    --output-path "$OUT/${pair##*:}" --meta none --overwrite
done
echo "generated platform_client, billing_client and test_client in $OUT"
