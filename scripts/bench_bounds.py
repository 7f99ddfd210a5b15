#!/usr/bin/env python3
"""Every request's work bounded (docs/decisions/other-peoples-data.md;
scripts/bench.sh --test-mode): another tenant's p99 alone, then while one
client pushes every bound of test mode at once, and the server's memory.

    bench_bounds.py BASE PID SECONDS [PUSHERS]

BASE is a test-mode server (default bounds, --renewal-interval 0) whose
process is PID. The tenant (a demo sandbox) reads its site with its partner
token and creates a secure form with its agent's token, 4 clients each 5
times a second, for SECONDS alone and then for SECONDS beside the pusher,
which meanwhile, from one address and in processes of its own:

- loads: 2 clients create a sandbox from a 1,000-site data set (2.2 MB inline,
  the most a sandbox holds) and delete it, in a loop (--sandbox-loads);
- problems: 1 client sends a 4 MiB data set whose every row is wrong
  (problems collected per data set);
- clock: moves a 1,000-site sandbox's clock 9 months at a time (9,000 site
  periods renewed, under the 10,000 a move may renew), and downloads its
  snapshot after each (at most 20,000 invoice lines);
- journal: 4 clients search a journal of 1,000 bodies of 15 KB for text no
  body holds (searches per tenant and per instance);
- held: 24 clients call an operation a 30 s delay fault holds (16 requests a
  sandbox holds at once);
- parser: 2 clients send 4 MB of property name or 300,000 unknown names.

PUSHERS (loads,clock,requests: all by default) names the pusher's processes
to run, to find which bound costs the tenant most. Prints one JSON object: the tenant's reads and writes (count, refused, p50,
p99 ms) alone and beside, their p99 ratios (target under 2), the pusher's
answers per action and status, and the server's resident memory idle and at
its peak (target: under 300 MB above idle).
"""

import concurrent.futures
import datetime
import json
import pathlib
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_data_sets import call, data  # noqa: E402

FORM = json.dumps({"name": "Tenant form", "color": "#1a73e8", "greetingMessage": "Hello", "submitButtonText": "Pay",
                   "fields": [{"name": "Card", "type": "cardNumber"}]}).encode()


def status_of(base, method, path, body=None, token=None, timeout=300):
    """The status of a request whose answer is read and dropped unparsed:
    the pusher's parsing (a 20 MB snapshot) would take a core from the server."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    request = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            while answer.read(1 << 20):
                pass
            return answer.status
    except urllib.error.HTTPError as err:
        err.read()
        return err.code


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def percentile(xs, q):
    xs = sorted(xs)
    return round(xs[max(0, int(len(xs) * q) - 1)], 1) if xs else 0.0


def summary(samples):
    times = [took for _, took in samples]
    return {"count": len(samples), "refused": sum(1 for status, _ in samples if status >= 300),
            "p50": round(statistics.median(times), 1) if times else 0.0, "p99": percentile(times, 0.99)}


def tenant(base, site, partner_token, agent_token, seconds):
    """4 clients, each a read and a write 5 times a second: (reads, writes)."""
    reads, writes = [], []
    deadline = time.monotonic() + seconds

    def client(_):
        while time.monotonic() < deadline:
            tick = time.monotonic()
            reads.append(call(base, "GET", f"/api/billing/sites/{site}", None, partner_token, timeout=60)[::2])
            writes.append(call(base, "POST", "/v4/secureform/secureForms", FORM, agent_token, timeout=60)[::2])
            time.sleep(max(0.0, 0.2 - (time.monotonic() - tick)))

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(client, range(4)))
    return summary(reads), summary(writes)


def looping(deadline, action):
    """ACTION() -> status, repeated until DEADLINE: [statuses]."""
    out = []
    while time.monotonic() < deadline:
        status = action()
        out.append(status)
        if status in (429, 503):
            time.sleep(1)
    return out


def in_threads(actions, deadline):
    """{name: [statuses]} of each (name, action) looping in a thread of its own."""
    with concurrent.futures.ThreadPoolExecutor(len(actions)) as pool:
        jobs = [(name, pool.submit(looping, deadline, action)) for name, action in actions]
        out = {}
        for name, job in jobs:
            out.setdefault(name, []).extend(job.result())
        return out


def push_loads(base, big, seconds):
    body = json.dumps({"dataSet": big}).encode()
    head = {k: big[k] for k in ("format", "partners", "partnerUsers")}
    row = {"id": "not a site", "partnerId": -1, "platformId": "x", "company": 7, "pad": "p" * 900}
    rows = (4 * 1024 * 1024 - 64 * 1024) // len(json.dumps(row))
    wrong_body = json.dumps({"dataSet": dict(head, sites=[row] * rows)}).encode()

    def load():
        status, made, _ = call(base, "POST", "/api/test/sandboxes", body, timeout=300)
        if made:
            call(base, "DELETE", f"/api/test/sandboxes/{made['partnerId']}", None, made["partner"]["accessToken"])
        return status

    def problems():
        return status_of(base, "POST", "/api/test/sandboxes", wrong_body)

    deadline = time.monotonic() + seconds
    return in_threads([("loads", load), ("loads", load), ("problems", problems)], deadline)


def push_clock(base, partner_id, partner_token, seconds):
    deadline = time.monotonic() + seconds
    out = {"clock": [], "snapshot": []}
    status, clock, _ = call(base, "GET", "/api/test/clock", None, partner_token)
    now = datetime.datetime.fromisoformat(clock["now"].replace("Z", "+00:00"))
    while time.monotonic() < deadline:
        month = now.month - 1 + 9
        now = now.replace(year=now.year + month // 12, month=month % 12 + 1, day=min(now.day, 28))
        to = json.dumps({"to": now.strftime("%Y-%m-%dT%H:%M:%SZ")}).encode()
        out["clock"].append(status_of(base, "POST", "/api/test/clock:advance", to, partner_token))
        out["snapshot"].append(status_of(base, "GET", f"/api/test/sandboxes/{partner_id}/data-set", None, partner_token))
        if out["clock"][-1] != 200:
            time.sleep(1)
    return out


def push_requests(base, agent_token, seconds):
    deadline = time.monotonic() + seconds
    huge = ('{"name":"Big","' + "q" * (4 * 1024 * 1024 - 64) + '":1}').encode()
    many = ('{"name":"Many",' + ",".join(f'"u{n}":0' for n in range(300_000)) + "}").encode()

    def scan():
        return status_of(base, "GET", "/api/test/requests?bodyContains=no-body-holds-this&limit=1000", None, agent_token)

    def held():
        return status_of(base, "GET", "/v4/secureform/secureForms?pageSize=1", None, agent_token)

    def parser(body):
        return lambda: status_of(base, "POST", "/v4/secureform/secureForms", body, agent_token)

    actions = [("journal", scan)] * 4 + [("held", held)] * 24 + [("parser", parser(huge)), ("parser", parser(many))]
    return in_threads(actions, deadline)


def prepare(base):
    """The tenant's demo sandbox and the pusher's 1,000-site ones."""
    status, victim, _ = call(base, "POST", "/api/test/sandboxes", b"{}")
    assert status == 201, status
    big = data(1000, 903)
    for agent in big["agents"]:
        agent["permissions"] = ["ManageSecureForm", "ManageVoicebot"]
    body = json.dumps({"dataSet": big}).encode()
    status, moved, _ = call(base, "POST", "/api/test/sandboxes", body, timeout=300)
    assert status == 201, status
    status, journaled, _ = call(base, "POST", "/api/test/sandboxes", body, timeout=300)
    assert status == 201, status
    agent = journaled["sites"][0]["agents"][0]["accessToken"]
    # A journal of 1,000 bodies of 15 KB (refused forms are journaled too).
    fat = json.dumps({"name": "Fat", "fields": [{"name": "x" * 140, "type": "text", "order": n} for n in range(100)]}).encode()
    for _ in range(1000):
        call(base, "POST", "/v4/secureform/secureForms", fat, agent)
    fault = json.dumps({"operationId": "listSecureForms", "kind": "delay", "delayMs": 30000, "times": 1000}).encode()
    status, _, _ = call(base, "POST", "/api/test/faults", fault, agent)
    assert status == 201, status
    return victim, big, moved, agent


def main(base, pid, seconds, pushers):
    victim, big, moved, agent = prepare(base)
    site = victim["sites"][0]
    partner_token = victim["partner"]["accessToken"]
    agent_token = site["agents"][0]["accessToken"]
    site_id = site.get("id", site.get("siteId"))
    time.sleep(2)
    idle = rss_kib(pid)
    alone_reads, alone_writes = tenant(base, site_id, partner_token, agent_token, seconds)
    peak = [idle]
    sampling = True

    def sample():
        while sampling:
            peak.append(rss_kib(pid))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    with concurrent.futures.ProcessPoolExecutor(3) as processes:
        every = {"loads": (push_loads, base, big, seconds + 5),
                 "clock": (push_clock, base, moved["partnerId"], moved["partner"]["accessToken"], seconds + 5),
                 "requests": (push_requests, base, agent, seconds + 5)}
        jobs = [processes.submit(*every[name]) for name in pushers]
        time.sleep(5)
        beside_reads, beside_writes = tenant(base, site_id, partner_token, agent_token, seconds)
        pushed = {}
        for job in jobs:
            for name, statuses in job.result().items():
                pushed.setdefault(name, []).extend(statuses)
    sampling = False
    sampler.join()
    print(json.dumps({
        "alone": {"reads": alone_reads, "writes": alone_writes},
        "beside": {"reads": beside_reads, "writes": beside_writes},
        "p99_ratio": {"reads": round(beside_reads["p99"] / alone_reads["p99"], 2),
                      "writes": round(beside_writes["p99"] / alone_writes["p99"], 2)},
        "pushed": {name: {str(s): statuses.count(s) for s in sorted(set(statuses))} for name, statuses in sorted(pushed.items())},
        "memory_mib": {"idle": round(idle / 1024), "peak": round(max(peak) / 1024), "above_idle": round((max(peak) - idle) / 1024)},
    }))


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), (sys.argv[4:] or ["loads,clock,requests"])[0].split(","))
