"""A reset against a create, from a fixture (a reset is to cost less than a
create, docs/performance.md): the medians of ROUNDS creates of sandboxes
from the fixture inline and of ROUNDS resets of one of them, taken in turns,
each timed alone on a test-mode server (scripts/bench.sh --test-mode).

    python3 scripts/bench_reset.py BASE_URL [FIXTURE] [ROUNDS]

Prints "create <ms> reset <ms> ratio <reset/create>"."""

import json
import os
import statistics
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def post(url: str, body: bytes, token: str = "") -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status in (200, 201), answer.status
        return json.load(answer)


def delete(url: str, token: str) -> None:
    request = urllib.request.Request(url, method="DELETE", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 204, answer.status


def timed(action) -> tuple[float, dict]:
    started = time.perf_counter()
    answer = action()
    return (time.perf_counter() - started) * 1000, answer


def main(base: str, fixture: str, rounds: int) -> None:
    with open(fixture, encoding="utf-8") as handle:
        body = json.dumps({"dataSet": json.load(handle)}).encode()
    # Taken in turns, a create (then deleted) and a reset of one sandbox each
    # round: the two see the same database and the same machine, where ROUNDS
    # of one and then of the other drifted apart by 20 % from run to run.
    sandbox = post(f"{base}/api/test/sandboxes", body)
    creates, resets = [], []
    for _ in range(rounds):
        ms, made = timed(lambda: post(f"{base}/api/test/sandboxes", body))
        creates.append(ms)
        delete(f"{base}/api/test/sandboxes/{made['partnerId']}", made["partner"]["accessToken"])
        url = f"{base}/api/test/sandboxes/{sandbox['partnerId']}:reset"
        ms, sandbox = timed(lambda: post(url, b"", sandbox["partner"]["accessToken"]))
        resets.append(ms)
    create, reset = statistics.median(creates), statistics.median(resets)
    print(f"create {create:.1f} reset {reset:.1f} ratio {reset / create:.2f}")


if __name__ == "__main__":
    main(
        sys.argv[1],
        sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "examples/fixtures/annual-eleven-months.json"),
        int(sys.argv[3]) if len(sys.argv) > 3 else 20,
    )
