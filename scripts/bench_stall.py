"""One request must not stall the others (docs/decisions/other-peoples-data.md): /health/live's p99
idle, then while 8 requests at once send what the unknown-name check reads
(4 bodies with a 4 MB property name, 4 with 300,000 unknown names), and the
size of their 400s. Against a server in test mode (names are checked there).

    python3 scripts/bench_stall.py http://127.0.0.1:8080 "$(switchboard token --site 10000 --email admin@site10000.example)"
"""
import json, subprocess, sys, threading, time, urllib.request, statistics
base, token = sys.argv[1], sys.argv[2]
def live_latencies(n, out):
    for _ in range(n):
        t = time.perf_counter(); urllib.request.urlopen(base + "/health/live", timeout=30).read(); out.append((time.perf_counter() - t) * 1000)
        time.sleep(0.01)
def p99(xs): xs = sorted(xs); return xs[int(len(xs) * 0.99) - 1]
idle = []; live_latencies(200, idle)
huge = '{"name":"Big","' + "q" * (4 * 1024 * 1024 - 64) + '":1}'
many = '{"name":"Many",' + ",".join(f'"u{n}":0' for n in range(300_000)) + '}'
sizes = []
def attack(body):
    req = urllib.request.Request(base + "/v4/secureform/secureForms", data=body.encode(), method="POST",
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    try: urllib.request.urlopen(req, timeout=120)
    except urllib.error.HTTPError as e: sizes.append(len(e.read()))
busy = []
threads = [threading.Thread(target=attack, args=(huge if i % 2 else many,)) for i in range(8)]
for t in threads: t.start()
t0 = time.perf_counter(); live_latencies(200, busy)
for t in threads: t.join()
print(f"/health/live p99 idle {p99(idle):.1f} ms, during 8 attacks (4 x 4 MB name, 4 x 300,000 names) {p99(busy):.1f} ms; answers {sorted(set(sizes))} bytes")
