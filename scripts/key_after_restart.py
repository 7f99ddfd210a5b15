"""A billing apply whose key was claimed when PostgreSQL went away: its retry
is answered soon after PostgreSQL is back, not 409003 until the key's lease
ends (docs/decisions/when-the-database-goes-away.md). scripts/test.sh (pg_outage) holds the site's row lock
in psql, so the apply claims its key and waits, then stops and starts
PostgreSQL around this script's two phases:

    key_after_restart.py send URL TOKEN KEY     (prints the apply's status)
    key_after_restart.py retry URL TOKEN KEY    (PostgreSQL just started)
"""

import sys
import time
import urllib.error
import urllib.request

AGENT = "0192f0c4-0000-7000-8000-000000010000"
BODY = b'{"planId": 1, "name": "After the restart"}'
# The key's lease is 10 s; a retry must not wait for it.
ANSWERED_WITHIN = 3.0


def apply(base, token, key):
    request = urllib.request.Request(
        f"{base}/api/billing/subscriptions:new?siteId=10000&agentId={AGENT}",
        data=BODY,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Idempotency-Key": key},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as err:
        return err.code


def main():
    phase, base, token, key = sys.argv[1:5]
    if phase == "send":
        print(apply(base, token, key))
        return
    started = time.monotonic()
    statuses = []
    while time.monotonic() - started < 15:
        status = apply(base, token, key)
        statuses.append(status)
        if status != 409 and status != 503:
            break
        time.sleep(0.25)
    took = time.monotonic() - started
    print(f"    the retry with the same key: {statuses[-1]} after {took:.2f} s ({len(statuses)} tries: {sorted(set(statuses))})")
    assert statuses[-1] in (200, 201) and took < ANSWERED_WITHIN, (statuses, took)


main()
