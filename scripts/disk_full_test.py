"""A real full disk under a serving SQLite instance (docs/decisions/when-the-database-goes-away.md): creates sent
while a small tmpfs fills are each answered 201 (and stored) or 507 (and not),
none acknowledged is missing while serving or after a restart, readiness is
503 while writes fail, and once the disk has room again writes resume in the
same process. SQLite's own page limit (tests/api/storage_full.rs) fails a
statement; only a real disk fails the COMMIT, which is what lost acknowledged
creates before the writer's connection was checked on release (db::connect).

    python3 scripts/disk_full_test.py --bin target/debug/switchboard

Needs root (mount); exits 0 with a note without it.
"""
import argparse, concurrent.futures, json, os, socket, subprocess, sys, tempfile, time, urllib.error, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--bin", required=True)
parser.add_argument("--size", default="6M", help="the tmpfs's size: the demo data and a few hundred forms")
parser.add_argument("--creates", type=int, default=2500)
args = parser.parse_args()

if os.geteuid() != 0:
    print("    skipped: mounting a small tmpfs needs root")
    sys.exit(0)

work = tempfile.mkdtemp(prefix="switchboard-disk-full.")
mount = os.path.join(work, "disk")
os.makedirs(mount)
subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={args.size}", "tmpfs", mount], check=True)
sock = socket.socket(); sock.bind(("127.0.0.1", 0)); port = sock.getsockname()[1]; sock.close()
base = f"http://127.0.0.1:{port}"
env = dict(os.environ, SWITCHBOARD_SECRET="disk-full-test-secret-0123456789abcdef",
           SWITCHBOARD_DATABASE_URL=f"sqlite://{mount}/switchboard.db?mode=rwc")
log = open(os.path.join(work, "server.log"), "w")
server = None


def start():
    global server
    server = subprocess.Popen([args.bin, "serve", "--listen", f"127.0.0.1:{port}"], env=env, stdout=log, stderr=log)
    for _ in range(150):
        try:
            urllib.request.urlopen(base + "/health/live", timeout=1)
            return
        except Exception:
            time.sleep(0.1)
    sys.exit("the server did not start")


def call(method, path, body=None):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read(), answer.headers
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers


def create(n):
    return call("POST", "/v4/secureform/secureForms", {
        "name": f"disk {n}", "color": "#112233", "greetingMessage": "x" * 300, "submitButtonText": "Pay",
        "fields": [{"name": f"f{i}", "displayName": "A" * 100, "type": "text", "order": i} for i in range(1, 8)]})


def missing(ids):
    return sum(1 for id in ids if call("GET", f"/v4/secureform/secureForms/{id}")[0] != 200)


try:
    start()
    token = subprocess.run([args.bin, "token", "--site", "10000", "--email", "admin@site10000.example"],
                           env=env, capture_output=True, text=True, check=True).stdout.strip()
    acknowledged, statuses = [], {}
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        for status, body, headers in pool.map(create, range(args.creates)):
            statuses[status] = statuses.get(status, 0) + 1
            if status == 201:
                acknowledged.append(json.loads(body)["id"])
            elif status == 507:
                assert json.loads(body)["code"] == 507001 and headers["Retry-After"], body
            else:
                sys.exit(f"a create answered {status}: {body[:300]}")
    print(f"    answers while the disk filled: {statuses}")
    assert statuses.get(507), "the disk never filled: a smaller --size"
    ready = call("GET", "/health/ready")[0]
    assert ready == 503, f"ready while writes fail: {ready}"
    lost = missing(acknowledged)
    print(f"    {len(acknowledged)} acknowledged, {lost} missing while serving; /health/ready {ready}")
    assert lost == 0
    subprocess.run(["mount", "-o", "remount,size=64M", mount], check=True)
    status = create("room")[0]
    ready = call("GET", "/health/ready")[0]
    print(f"    room again: a create {status}, /health/ready {ready}, same process")
    assert status == 201 and ready == 200
    server.terminate(); server.wait()
    start()
    lost = missing(acknowledged)
    print(f"    after a restart: {lost} of {len(acknowledged)} acknowledged missing")
    assert lost == 0
finally:
    if server:
        server.terminate(); server.wait()
    subprocess.run(["umount", mount])
