#!/usr/bin/env python3
"""A partner's state, exported, loaded into a new sandbox and taken again:
the same up to ids (docs/decisions/test-mode.md). The bank test runs it on the state
its run left (scripts/bank_test.py); on its own:

    scripts/snapshot_round_trip.py --bin target/debug/switchboard --partner 1

with the database and secret in SWITCHBOARD_DATABASE_URL / SWITCHBOARD_SECRET.

1. `switchboard data-set export --partner N` writes the state (its clock, the
   partner's "now", in it);
2. a test-mode server on the same database (its other tenants stopped: the
   bank test's servers are) makes a sandbox from that file, a file of its
   `--data-sets` folder;
3. the sandbox's snapshot (`GET /api/test/sandboxes/{id}/data-set`) is written
   back in the first file's labels (the ids the sandbox answered with) and
   compared, field by field.
"""

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, token=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode(errors="replace")


def in_labels(snapshot, sandbox, source):
    """The snapshot written in the source's labels: each id the sandbox
    answered with (`labels`, its sites' `twinOf`, its partner) back to its label."""
    labels = {new: label for label, new in sandbox["labels"].items()}
    pairs = [(s["siteId"], s["twinOf"]) for s in sandbox["sites"]] + [(sandbox["partnerId"], source["partners"][0]["id"])]
    numbers = {str(new): str(label) for new, label in pairs}
    # One pass each (a replace per label is quadratic on a busy tenant's thousands of ids).
    text = UUID.sub(lambda m: labels.get(m.group(0), m.group(0)), json.dumps(snapshot))
    whole = re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, numbers)) + r")(?![\w.-])")
    return json.loads(whole.sub(lambda m: numbers[m.group(1)], text))


def differences(a, b, at=""):
    """Where a and b differ: each JSON pointer, with both values."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), f"{at}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{at}/{i}")]
    return [] if a == b else [f"{at}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"]


def round_trip(binary, env, partner, work):
    """Problems found (empty: the round trip holds) and a one-line summary."""
    exported = subprocess.run([binary, "data-set", "export", "--partner", str(partner)], env=env, check=True,
                              capture_output=True, text=True).stdout
    first = json.loads(exported)
    folder = os.path.join(work, "data-sets")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "state.json"), "w") as f:
        f.write(exported)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with open(os.path.join(work, "sandbox-server.log"), "w") as log:
        server = subprocess.Popen([binary, "serve", "--test-mode", "--listen", f"127.0.0.1:{port}", "--data-sets", folder],
                                  env=env, stdout=log, stderr=log)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/health/ready", timeout=2)
                break
            except Exception:
                time.sleep(0.1)
        else:
            return [f"the test-mode server did not start; see {work}/sandbox-server.log"], ""
        started = time.monotonic()
        status, sandbox = call(base, "POST", "/api/test/sandboxes", body={"dataSet": "state"})
        made = time.monotonic() - started
        if status != 201:
            return [f"a sandbox from the exported state: {status} {str(sandbox)[:2000]}"], ""
        token = sandbox["partner"]["accessToken"]
        status, second = call(base, "GET", f"/api/test/sandboxes/{sandbox['partnerId']}/data-set", token)
        if status != 200:
            return [f"the sandbox's snapshot: {status} {str(second)[:2000]}"], ""
    finally:
        server.terminate()
        server.wait()
    # A download names its server's copy of the schema (`$schema`); an export,
    # written with no server, names none: not a difference of state.
    second.pop("$schema", None)
    found = differences(first, in_labels(second, sandbox, first))
    sizes = {k: len(v) for k, v in first.items() if isinstance(v, list) and v}
    summary = f"{len(exported)} bytes made a sandbox in {made:.1f} s; " + ", ".join(f"{k} {v}" for k, v in sizes.items())
    return found, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--partner", type=int, required=True)
    args = parser.parse_args()
    found, summary = round_trip(args.bin, dict(os.environ), args.partner, tempfile.mkdtemp(prefix="round-trip-"))
    for problem in found[:40]:
        print(" -", problem)
    if found:
        sys.exit(f"the round trip changed {len(found)} field(s)")
    print(f"round trip holds: {summary}")


if __name__ == "__main__":
    main()
