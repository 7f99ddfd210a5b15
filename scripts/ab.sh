#!/usr/bin/env bash
# A/B of the billing request path: OLD and NEW release binaries side by side,
# each on its own fresh SQLite database with the demo data, wrk -t1 -c32 -d4s,
# ROUNDS rounds interleaved (old, new, old, ...); prints each round's req/s.
# Build the old one in a worktree with its own CARGO_TARGET_DIR.
#
# OLD_ENV / NEW_ENV are settings for one side only, so one binary can be
# compared with itself (test mode off against on):
#
#   scripts/ab.sh OLD_BINARY NEW_BINARY      SCENARIOS="calculate_new add_subscription" ROUNDS=3
#   NEW_ENV="SWITCHBOARD_TEST_MODE=true" SCENARIOS="get_form" scripts/ab.sh BIN BIN
#
# NEW_CONSOLE=1 keeps the test console open on the new side's Requests screen
# (partner 1, in Chromium: clients/console-open.mjs) through every round; both
# sides need test mode:
#
#   OLD_ENV=SWITCHBOARD_TEST_MODE=true NEW_ENV=SWITCHBOARD_TEST_MODE=true NEW_CONSOLE=1 scripts/ab.sh BIN BIN
#
# Scenarios: calculate_new, add_subscription, get_site (partner 1's token),
# get_form (demo form f001 with site 10000's admin's token). They share the
# two databases in the order given: put get_site before add_subscription, or
# in a run of its own, since after add_subscription site 10000 holds
# thousands of subscriptions and a GET of it answers under once a second.
set -euo pipefail
OLD=$1 NEW=$2 ROUNDS=${ROUNDS:-3}
W=$(mktemp -d)
export SWITCHBOARD_SECRET="bench-secret-0123456789abcdef0123456789"
start() { # bin port db
  local settings=${OLD_ENV:-}
  [ "$3" = new ] && settings=${NEW_ENV:-}
  env $settings SWITCHBOARD_DATABASE_URL="sqlite://$W/$3.db?mode=rwc" "$1" serve --listen "127.0.0.1:$2" > "$W/$3.log" 2>&1 &
  echo $! >> "$W/pids"
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$2/health/ready" && return 0; sleep 0.2; done
}
start "$OLD" 18101 old; start "$NEW" 18102 new
trap 'kill $(cat $W/pids) 2>/dev/null; rm -rf $W' EXIT
AGENT=0192f0c4-0000-7000-8000-000000010000
tok() { SWITCHBOARD_DATABASE_URL="sqlite://$W/$1.db?mode=rwc" "$2" token --partner 1 --email admin@partner1.example; }
if [ "${NEW_CONSOLE:-0}" = 1 ]; then
  node "$(dirname "$0")/../clients/console-open.mjs" http://127.0.0.1:18102 "$(tok new "$NEW")" &
  echo $! >> "$W/pids"
  sleep 3
fi
agent_tok() { SWITCHBOARD_DATABASE_URL="sqlite://$W/$1.db?mode=rwc" "$2" token --site 10000 --email admin@site10000.example; }
echo '{"planId": 4, "name": "Platform"}' > "$W/plan.json"
run() { # url token method body
  printf 'wrk.method="%s"\nwrk.headers["Authorization"]="Bearer %s"\nwrk.headers["Content-Type"]="application/json"\n' "$3" "$2" > "$W/s.lua"
  [ -n "${4:-}" ] && printf 'wrk.body=[==[%s]==]\n' "$(cat "$4")" >> "$W/s.lua"
  wrk -t1 -c32 -d4s -s "$W/s.lua" "$1" | awk '/Requests\/sec/ {print int($2)}'
}
for scenario in ${SCENARIOS:-calculate_new add_subscription}; do
  TOLD=$(tok old "$OLD"); TNEW=$(tok new "$NEW")
  case $scenario in
    calculate_new) path="/api/billing/subscriptions:calculateNew?siteId=10000&agentId=$AGENT"; m=POST; b="$W/plan.json" ;;
    add_subscription) path="/api/billing/subscriptions:new?siteId=10000&agentId=$AGENT"; m=POST; b="$W/plan.json" ;;
    get_site) path="/api/billing/sites/10000"; m=GET; b="" ;;
    get_form) path="/v4/secureform/secureForms/0192f0c4-0000-7000-8000-00000000f001"; m=GET; b=""
      TOLD=$(agent_tok old "$OLD"); TNEW=$(agent_tok new "$NEW") ;;
  esac
  run "http://127.0.0.1:18101$path" "$TOLD" $m $b > /dev/null; run "http://127.0.0.1:18102$path" "$TNEW" $m $b > /dev/null
  o=(); n=()
  for r in $(seq 1 "$ROUNDS"); do
    o+=($(run "http://127.0.0.1:18101$path" "$TOLD" $m $b)); n+=($(run "http://127.0.0.1:18102$path" "$TNEW" $m $b))
  done
  echo "$scenario old ${o[*]} new ${n[*]}"
done
