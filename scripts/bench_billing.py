#!/usr/bin/env python3
"""Billing on PostgreSQL beside SQLite, in one run (`scripts/bench.sh --billing`).

Three servers of one build: S on a SQLite file, P1 and P2 on one PostgreSQL
database. Each scenario runs ROUNDS times, S and P interleaved, with wrk
(-t1, CONNECTIONS connections, DURATION seconds after a warm-up second):

- previews: `:calculateNew` and `:calculateChanges` on demo site 10000, and
  `:calculateNew` spread over 100 sites (PostgreSQL batches previews' reads:
  identical previews share theirs, so the one-site figures are its best case);
- `:new` on one site (every apply queues on that site's lock);
- `:new` spread over 100 sites by CONNECTIONS clients: through P1 alone, then
  through P1 and P2 at once (two wrk processes, half the connections each).

Prints medians and the ratios docs/decisions/billing-under-retries-disconnects-crashes-and-races.md sets targets for: PostgreSQL over
SQLite (`:new` one site >= 0.5, previews >= 0.6) and two PostgreSQL instances
over one (>= 1.5; on 2 cores shared with wrk and PostgreSQL itself this says
little, docs/performance.md).

    bench_billing.py data > spread.json       (the 100 sites, for `switchboard seed --file`)
    bench_billing.py --sqlite URL --postgres URL --postgres-2 URL --token T --agent ID --rounds 3 --duration 5 --connections 32
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import urllib.request

SPREAD_FIRST = 200000
SPREAD_SITES = 100
CHANGE = {"ifCreateInvoice": True, "isDraft": False, "subscriptionChangeDtos": [{
    "actionType": 4, "srcSubscriptionId": "0192f0c4-0000-7000-8000-000000140002",
    "subscription": {"planId": 1, "name": "Team", "isServicePlan": False, "canBeCancelledByCustomer": True,
                     "subscriptionPricingModels": []}}]}
PLAN = {"planId": 4, "name": "Platform"}


def lua(token, body, spread, verb="new"):
    script = [
        'wrk.method = "POST"',
        f'wrk.headers["Authorization"] = "Bearer {token}"',
        'wrk.headers["Content-Type"] = "application/json"',
        f"wrk.body = [==[{json.dumps(body)}]==]",
    ]
    if spread:
        script += [
            "agent = function(site)",
            '  return string.format("0192f0c4-0000-7000-b000-%012d", site)',
            "end",
            "request = function()",
            f"  local site = {SPREAD_FIRST} + math.random(0, {SPREAD_SITES - 1})",
            f'  return wrk.format(nil, string.format("/api/billing/subscriptions:{verb}?siteId=%d&agentId=%s", site, agent(site)))',
            "end",
        ]
    handle = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    handle.write("\n".join(script) + "\n")
    handle.close()
    return handle.name


def start_wrk(url, script, connections, duration):
    return subprocess.Popen(["wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--latency", "-s", script, url],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def parse(out):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, int(non2xx.group(1)) if non2xx else 0


def wrk(urls, script, connections, duration):
    """req/s summed over `urls`, each loaded at once by connections / len(urls)."""
    runs = [start_wrk(url, script, connections // len(urls), duration) for url in urls]
    total, errors = 0.0, 0
    for run in runs:
        rps, bad = parse(run.communicate()[0])
        total, errors = total + rps, errors + bad
    return total, errors


def agent_of(site):
    """The agent id the Lua script names for `site`."""
    return f"0192f0c4-0000-7000-b000-{site:012d}"


def spread_data():
    """100 sites of partner 1, each with an agent and a monthly billing configuration."""
    sites = range(SPREAD_FIRST, SPREAD_FIRST + SPREAD_SITES)
    return {
        "sites": [{"id": s, "partnerId": 1, "platformId": 1, "company": f"Spread {s}"} for s in sites],
        "agents": [{"id": agent_of(s), "siteId": s, "email": f"admin@spread{s}.example", "displayName": "Spread admin",
                    "firstName": "Spread", "lastName": "Admin", "isAdmin": True, "password": "spread-agent-password"} for s in sites],
        "siteBillingConfigs": [{"siteId": s, "billingPeriod": "monthly", "currencyId": "USD", "paymentTerm": "Net 30",
                                "paymentTermValue": 30, "billingStartDate": "2026-01-01T00:00:00Z",
                                "nextBillingDate": "2099-01-01T00:00:00Z", "balance": 0.0, "purchasedAgents": 1} for s in sites],
    }


def main():
    if sys.argv[1:] == ["data"]:
        print(json.dumps(spread_data()))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sqlite", required=True)
    parser.add_argument("--postgres", required=True)
    parser.add_argument("--postgres-2", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--agent", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--grow", type=int, default=0, metavar="SECONDS",
                        help="only give both databases a billing history (applies on site 10000 and the spread) for this long")
    parser.add_argument("--only", default=os.environ.get("BILLING_ONLY_SCENARIO", ""),
                        help="run only the scenarios whose name contains this (BILLING_ONLY_SCENARIO)")
    args = parser.parse_args()
    new_one = f"/api/billing/subscriptions:new?siteId=10000&agentId={args.agent}"
    # (name, path, body, verb spread over 100 sites: the path is the script's)
    scenarios = [
        ("calculateNew (preview)", f"/api/billing/subscriptions:calculateNew?siteId=10000&agentId={args.agent}", PLAN, None),
        ("calculateNew over 100 sites (preview)", "", PLAN, "calculateNew"),
        ("calculateChanges (preview, credits)", "/api/billing/subscriptions:calculateChanges?siteId=10000", CHANGE, None),
        (":new on one site (apply)", new_one, PLAN, None),
    ]
    if args.grow:
        # Statistics taken on near-empty tables make PostgreSQL plan its
        # foreign-key checks as sequential scans, kept by each connection as
        # the tables grow (docs/performance.md): the tables get a history first.
        for url in (args.sqlite, args.postgres):
            wrk([url + new_one], lua(args.token, PLAN, spread=False), 8, args.grow)
            wrk([url], lua(args.token, PLAN, spread=True), 8, args.grow)
        return
    scenarios = [s for s in scenarios if args.only in s[0]]
    results = []
    for name, path, body, spread_verb in scenarios:
        script = lua(args.token, body, spread=spread_verb is not None, verb=spread_verb or "new")
        wrk([args.sqlite + path, args.postgres + path], script, 2, 1)  # warm-up, not counted
        sqlite, postgres, errors = [], [], 0
        for _ in range(args.rounds):
            rps, bad = wrk([args.sqlite + path], script, args.connections, args.duration)
            sqlite.append(rps)
            errors += bad
            rps, bad = wrk([args.postgres + path], script, args.connections, args.duration)
            postgres.append(rps)
            errors += bad
        s, p = statistics.median(sqlite), statistics.median(postgres)
        results.append((name, s, p, errors))
        print(f"    {name}: SQLite {sqlite}, PostgreSQL {postgres}, non-2xx {errors}", file=sys.stderr, flush=True)
    if args.only:
        print_results(results, None)
        return
    spread = lua(args.token, PLAN, spread=True)
    one, two, errors = [], [], 0
    wrk([args.postgres, args.postgres_2], spread, 2, 1)
    for _ in range(args.rounds):
        rps, bad = wrk([args.postgres], spread, args.connections, args.duration)
        one.append(rps)
        errors += bad
        rps, bad = wrk([args.postgres, args.postgres_2], spread, args.connections, args.duration)
        two.append(rps)
        errors += bad
    print(f"    :new over {SPREAD_SITES} sites: one instance {one}, two {two}, non-2xx {errors}", file=sys.stderr, flush=True)
    print_results(results, (one, two, errors, args.connections))


def print_results(results, spread):
    print("\n| scenario | SQLite req/s | PostgreSQL req/s | PG / SQLite | non-2xx |")
    print("|---|---|---|---|---|")
    for name, s, p, bad in results:
        print(f"| {name} | {s:,.0f} | {p:,.0f} | **{p / s:.2f}** | {bad} |")
    if spread is None:
        return
    one, two, errors, connections = spread
    o, t = statistics.median(one), statistics.median(two)
    print(f"\n`:new` over {SPREAD_SITES} sites by {connections} clients, PostgreSQL: one instance {o:,.0f} req/s, "
          f"two instances {t:,.0f} req/s: two / one **{t / o:.2f}** (non-2xx {errors})")


if __name__ == "__main__":
    main()
