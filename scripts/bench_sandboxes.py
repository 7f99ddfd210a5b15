"""Creates COUNT demo sandboxes on a test-mode server with CLIENTS at once
(scripts/bench.sh --test-mode): prints "<count> <seconds> <per second>".

    python3 scripts/bench_sandboxes.py BASE_URL COUNT CLIENTS"""

import concurrent.futures
import json
import sys
import time
import urllib.request


def create(base: str) -> int:
    request = urllib.request.Request(
        base + "/api/test/sandboxes", data=b'{"dataSet": "demo"}', method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 201, answer.status
        return json.load(answer)["partnerId"]


def main(base: str, count: int, clients: int) -> None:
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        made = list(pool.map(lambda _: create(base), range(count)))
    seconds = time.monotonic() - started
    assert len(set(made)) == count
    print(f"{count} {seconds:.2f} {count / seconds:.1f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
