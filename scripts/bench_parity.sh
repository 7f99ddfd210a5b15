#!/usr/bin/env bash
# Parity's two figures (docs/parity.md), in one run on this machine:
#
# 1. What the validating proxy adds to an exchange: wrk against switchboard
#    directly and through `switchboard proxy --record` (checking every
#    exchange against the documents and normalising it into a session),
#    interleaved ROUNDS times, for a site's GET (the largest answer of the
#    demo data, 20 KB) and a secure form list; p50 and p99 added, and the
#    throughput ratio.
# 2. How long a session of EXCHANGES exchanges takes to replay: recorded
#    through the proxy by scripts/bench_parity_flow.py, then `switchboard
#    parity --against` the same server (a fresh sandbox of the demo data).
#
#   scripts/bench_parity.sh [BIN]      BIN: a built switchboard (default target/release)
#   ROUNDS=3 DURATION=5 CONNECTIONS=8 EXCHANGES=1000 override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=${1:-$ROOT/target/release/switchboard}
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-5} CONNECTIONS=${CONNECTIONS:-8} EXCHANGES=${EXCHANGES:-1000}
WORK=$(mktemp -d /tmp/switchboard-bench-parity.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() {
  for _ in $(seq 1 100); do
    curl -s -o /dev/null "$1" && return 0
    sleep 0.2
  done
  echo "timed out waiting for $1" >&2; return 1
}
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

export SWITCHBOARD_DATABASE_URL="sqlite://$WORK/bench.db?mode=rwc"
export SWITCHBOARD_SECRET="bench-secret-0123456789abcdef0123456789"
PORT=$(free_port) PROXY_PORT=$(free_port)
"$BIN" serve --test-mode --listen "127.0.0.1:$PORT" --renewal-interval 0 > "$WORK/server.log" 2>&1 & PIDS+=($!)
wait_for "http://127.0.0.1:$PORT/health/ready"
"$BIN" proxy --upstream "http://127.0.0.1:$PORT" --listen "127.0.0.1:$PROXY_PORT" --record "$WORK/wrk-session.json" \
  > "$WORK/proxy.log" 2>&1 & PIDS+=($!)
wait_for "http://127.0.0.1:$PROXY_PORT/_proxy/report"
PARTNER_TOKEN=$("$BIN" token --partner 1 --email admin@partner1.example)
SITE_TOKEN=$("$BIN" token --site 10000 --email admin@site10000.example)

# One wrk run: "req/s p50-ms p99-ms non-2xx".
run_wrk() { # url token
  printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$2" > "$WORK/wrk.lua"
  wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/wrk.lua" "$1" 2>&1 | python3 -c '
import re, sys
out = sys.stdin.read()
def ms(p):
    m = re.search(p + r"%\s+([\d.]+)(us|ms|s)\b", out)
    return float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
p50, p99 = ms("50"), ms("99")
print(f"{rps:.0f} {p50:.3f} {p99:.3f} {bad.group(1) if bad else 0}")'
}

echo "scenario      direct req/s p50 p99 | proxied req/s p50 p99 | added p50 p99 (ms) | ratio"
for scenario in "get_site /api/billing/sites/10000 $PARTNER_TOKEN" "list_forms /v4/secureform/secureForms $SITE_TOKEN"; do
  set -- $scenario
  for round in $(seq 1 "$ROUNDS"); do
    direct=$(run_wrk "http://127.0.0.1:$PORT$2" "$3")
    proxied=$(run_wrk "http://127.0.0.1:$PROXY_PORT$2" "$3")
    python3 - "$1" "$direct" "$proxied" <<'PY'
import sys
name, d, p = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
print(f"{name:12} {d[0]:>7} {d[1]:>6} {d[2]:>6} | {p[0]:>7} {p[1]:>6} {p[2]:>6} | "
      f"{float(p[1]) - float(d[1]):+.3f} {float(p[2]) - float(d[2]):+.3f} | {float(p[0]) / float(d[0]):.2f}"
      + ("" if d[3] == p[3] == "0" else f"  non-2xx {d[3]}/{p[3]}"))
PY
  done
done
kill "${PIDS[1]}"; wait "${PIDS[1]}" 2>/dev/null || true

# A session of EXCHANGES exchanges, replayed.
PROXY_PORT=$(free_port)
"$BIN" proxy --upstream "http://127.0.0.1:$PORT" --listen "127.0.0.1:$PROXY_PORT" --record "$WORK/session.json" \
  > "$WORK/proxy2.log" 2>&1 & PROXY_PID=$!
PIDS+=("$PROXY_PID")
wait_for "http://127.0.0.1:$PROXY_PORT/_proxy/report"
python3 "$ROOT/scripts/bench_parity_flow.py" "http://127.0.0.1:$PROXY_PORT" "$EXCHANGES"
kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true
start=$(date +%s.%N)
"$BIN" parity "$WORK/session.json" --against "http://127.0.0.1:$PORT" --json "$WORK/parity.json" | head -n 3
end=$(date +%s.%N)
python3 - "$WORK/parity.json" "$start" "$end" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(f"replay: {report['exchanges']} exchanges in {float(sys.argv[3]) - float(sys.argv[2]):.2f} s, "
      f"parity {report['parityRate'] * 100:.1f} %, {len(report['differences'])} differences")
PY
