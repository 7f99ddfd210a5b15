#!/usr/bin/env python3
"""The bank test: billing under retries, disconnects, a crash and races.

In the style of Jepsen's bank test. Starts `--instances` servers on one
database (`SWITCHBOARD_DATABASE_URL`), loads six sites of partner 1, and for
`--seconds` runs `--clients` clients of random billing applies (`:new`,
`{id}:switchPlan`, `{id}:cancel`, `:changes`) and racing writes (the site's
billing configuration, a subscription's flags), half of them on one site. Of
the acknowledged applies, 14 % are sent again with the same key and body, 8 %
with the same key and another body; 6 % of applies are sent twice at once, 3 %
abandoned by their client after 2 ms (then retried). Halfway through, one
instance is killed with SIGKILL and started again; requests cut by it are
retried with their keys. Then, over HTTP and in the database:

- every key ends answered: no key is "in flight" a few seconds after its
  request died (a stranded key is a failure); every key cut by the kill is
  answered within 3 s of the restart (its instance is known dead: no lease to
  wait for), on any instance;
- no key has two effects: each apply's subscription exists once, and the site's
  invoices are exactly the acknowledged applies' invoices;
- every acknowledged invoice exists once with the figures its answer gave;
- every replay is byte for byte the first answer; a reused key is a 422;
- line items sum to their invoices; each credit cancels one charge, once;
- each balance is the sum of its unpaid and credit invoices (docs/billing.md),
  in the configuration's currency;
- a cancelled subscription shows neither cancel nor upgrade;
- no answer is a 500;
- with `--disk-full` (SQLite, as root): the database sits on a tmpfs of its
  own, filled to its last byte for 5 s a fifth of the way in; with
  `--restart-database CMD` (PostgreSQL): CMD (a crash and a start) runs a fifth
  of the way in. Only then, and for a few seconds after, may an answer be
  503 or 507; half of those are retried with their keys, half given up: a
  given-up write must have left nothing (it is not among the acknowledged,
  which the checks above compare with the database), a retried one is
  answered, and no key still waits (409003) 3 s after the database is back;
- the state it leaves, exported (`data-set export`), loaded into a sandbox and
  taken again, is the same up to ids (scripts/snapshot_round_trip.py).

What it checks is deterministic; which interleavings it meets is not (the
seed fixes the choices, not the timing).

    scripts/bank_test.py --bin target/debug/switchboard --database-url URL [--instances 2]
"""

import argparse
import atexit
import decimal
import http.client
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

import snapshot_round_trip

SITES = [40001, 40002, 40003, 40004, 40005, 40006]
HOT_SITE = SITES[0]
PLANS = [1, 2, 3, 4]
VALID_CARD, DECLINED_CARD = "4242424242424242", "4000000000000002"
SECRET = "bank-test-secret-0123456789abcdef0123"
NIL = "00000000-0000-0000-0000-000000000000"
# A key cut by the kill answers this soon after the restart (a usual client retry policy).
CRASH_RETRY_SECONDS = 3.0
# The outage phase: a fifth of the way in, the disk held full this long.
DISK_FULL_SECONDS = 5.0
# After the outage, answers may still say so this long (pooled connections
# found broken, the storage check): then every write succeeds again.
OUTAGE_GRACE_SECONDS = 5.0


def agent_of(site):
    return f"0192f0c4-0000-7000-8000-0000000{site}"


def data_set():
    """Six sites of partner 1: monthly USD from 2026-01-01; cards that settle,
    a declined card and no automatic charge, so balances move both ways."""
    cards = [(True, VALID_CARD), (True, DECLINED_CARD), (False, VALID_CARD), (True, VALID_CARD), (True, DECLINED_CARD), (False, VALID_CARD)]
    data = {"sites": [], "agents": [], "siteBillingConfigs": [], "siteBillingProfiles": []}
    for site, (automatic, card) in zip(SITES, cards):
        data["sites"].append({"id": site, "partnerId": 1, "platformId": 1, "company": f"Bank test {site}"})
        data["agents"].append({"id": agent_of(site), "siteId": site, "email": f"admin@site{site}.example", "password": "bank-test-only",
                               "displayName": "Bank Admin", "isAdmin": True, "permissions": ["ManageSecureForm"]})
        data["siteBillingConfigs"].append({"siteId": site, "billingPeriod": "monthly", "currencyId": "USD", "paymentTerm": "Net 30",
                                           "paymentTermValue": 30, "billingStartDate": "2026-01-01T00:00:00Z", "balance": 0.0, "purchasedAgents": 5})
        data["siteBillingProfiles"].append({"siteId": site, "firstName": "Bank", "lastName": "Test", "companyName": f"Bank test {site}",
                                            "email": f"billing@site{site}.example", "countryOrRegion": "US", "stateOrProvince": "CA",
                                            "city": "San Francisco", "mailingAddress": "1 Market St", "postalOrZipCode": "94105",
                                            "billTo": f"Bank test {site}", "isChargedAutomatically": automatic, "isEPayment": True,
                                            "primaryPaymentTypeId": "card", "nameOnPrimaryCard": "Bank Test", "primaryCardNumber": card,
                                            "primaryCardExpirationDate": "2030-12-31T00:00:00Z"})
    return data


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Servers:
    """The instances, started and killed by this test."""

    def __init__(self, binary, url, count, log_dir):
        self.binary, self.url, self.log_dir = binary, url, log_dir
        self.env = dict(os.environ, SWITCHBOARD_DATABASE_URL=url, SWITCHBOARD_SECRET=SECRET)
        self.env.pop("SWITCHBOARD_SECRET_FILE", None)
        self.lock = threading.Lock()
        self.processes = [None] * count
        self.bases = [None] * count
        self.starts = 0
        for i in range(count):
            self.start(i)

    def start(self, i):
        port = free_port()
        self.starts += 1
        log = open(os.path.join(self.log_dir, f"server-{i}-{self.starts}.log"), "w")
        process = subprocess.Popen([self.binary, "serve", "--listen", f"127.0.0.1:{port}"], env=self.env, stdout=log, stderr=log)
        base = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "/health/ready", timeout=2)
                break
            except Exception:
                time.sleep(0.1)
        else:
            sys.exit(f"instance {i} did not start; see {log.name}")
        with self.lock:
            self.processes[i], self.bases[i] = process, base

    def kill_and_restart(self, i):
        with self.lock:
            process, self.bases[i] = self.processes[i], None
        process.kill()
        process.wait()
        self.start(i)

    def base(self, rng):
        """A live instance's URL (waits while the only one restarts)."""
        while True:
            with self.lock:
                live = [b for b in self.bases if b]
            if live:
                return rng.choice(live)
            time.sleep(0.05)

    def stop(self):
        for process in self.processes:
            if process:
                process.terminate()
                process.wait()


def call(base, method, path, token, body=None, key=None, timeout=30):
    """(status, headers, body bytes); status 0 when the connection failed."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if key:
        request.add_header("Idempotency-Key", key)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()
    except (OSError, http.client.HTTPException) as err:
        return 0, {}, str(err).encode()


def abandon(base, path, token, body, key):
    """Sends the request and hangs up 2 ms later without reading the answer."""
    host, port = base.removeprefix("http://").split(":")
    data = json.dumps(body).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nIdempotency-Key: {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode()
    try:
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(head + data)
            time.sleep(0.002)
    except OSError:
        pass


class Run:
    def __init__(self, servers, token, seconds, clients, seed):
        self.servers, self.token, self.seconds, self.clients, self.seed = servers, token, seconds, clients, seed
        self.lock = threading.Lock()
        self.subscriptions = {site: [] for site in SITES}
        self.names = {}  # subscription id -> the name its request gave it
        self.acknowledged = []  # (kind, site, key, body, answer dict)
        self.failures = []
        self.counts = {}
        self.sequence = 0
        self.first_sent = {}  # key -> when its first request was sent (monotonic)
        self.cut = set()  # keys a request of which lost its connection
        self.restarted_at = None  # when the killed instance was ready again
        self.answered_late = []  # (key, seconds after the restart) of keys cut by the kill
        self.outage = None  # the phase: a callable that takes the database away and gives it back
        self.outage_window = None  # (from, until) monotonic: the outage and its grace
        self.outage_back = None  # when the database was back

    def fail(self, what):
        with self.lock:
            self.failures.append(what)

    def count(self, what):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    def next_name(self):
        with self.lock:
            self.sequence += 1
            return f"bank-{self.sequence}"

    def pick_site(self, rng):
        return HOT_SITE if rng.random() < 0.5 else rng.choice(SITES[1:])

    def pick_subscription(self, rng, site):
        with self.lock:
            known = self.subscriptions[site]
            return rng.choice(known) if known else None

    def apply(self, rng):
        """A random apply: (kind, site, path, body)."""
        site = self.pick_site(rng)
        kind = rng.choice(["new", "new", "switch", "cancel", "changes"])
        target = self.pick_subscription(rng, site)
        if kind in ("switch", "cancel") and not target:
            kind = "new"
        if kind == "new":
            path = f"/api/billing/subscriptions:new?siteId={site}&agentId={agent_of(site)}"
            return kind, site, path, {"planId": rng.choice(PLANS), "name": self.next_name()}
        if kind == "switch":
            path = f"/api/billing/subscriptions/{target}:switchPlan?siteId={site}&agentId={agent_of(site)}"
            return kind, site, path, {"planId": rng.choice(PLANS), "name": self.next_name()}
        if kind == "cancel":
            return kind, site, f"/api/billing/subscriptions/{target}:cancel?siteId={site}", {"ifCreateInvoice": True, "isDraft": False}
        body = {"ifCreateInvoice": rng.random() < 0.8, "isDraft": False, "purchasedAgents": rng.randint(1, 12)}
        return kind, site, f"/api/billing/subscriptions:changes?siteId={site}", body

    def in_outage(self):
        window = self.outage_window
        return window is not None and window[0] <= time.monotonic() <= window[1]

    def outage_answer(self, status):
        """A 503 or 507 while the database is away (or just back): allowed."""
        return status in (503, 507) and self.in_outage()

    def unsettled(self, key, status, raw):
        """Whether to send the key again: its answer lost (0), in flight (409003),
        or the database away. A key still in flight 3 s after the database came
        back is stranded: a failure."""
        waiting = status == 409 and b"409003" in raw
        back = self.outage_back
        if waiting and back is not None and self.first_sent.get(key, back) < back and time.monotonic() - back > CRASH_RETRY_SECONDS:
            self.fail(f"key {key} still in flight {time.monotonic() - back:.1f} s after the database came back")
            return False
        return status == 0 or waiting or self.outage_answer(status)

    def settle(self, path, body, key, first):
        """Retries a key whose answer was lost (0), in flight (409003) or refused
        while the database was away, until it answers."""
        status, headers, raw = first
        deadline = time.monotonic() + 30
        while self.unsettled(key, status, raw):
            if time.monotonic() > deadline:
                self.fail(f"key {key} still unanswered after 30 s: {status} {raw[:200]!r}")
                return None
            time.sleep(0.5 if status in (503, 507) else 0.2)
            self.count("retried")
            status, headers, raw = call(self.servers.base(random), "POST", path, self.token, body, key)
            if status == 0:
                self.cut.add(key)
        self.cut_by_the_kill(key)
        return status, headers, raw

    def cut_by_the_kill(self, key):
        """A key whose request was cut (its connection failed), first sent before
        the restart and answered after it: within CRASH_RETRY_SECONDS."""
        first, restarted = self.first_sent.get(key), self.restarted_at
        if key not in self.cut or first is None or restarted is None or first >= restarted:
            return
        after = time.monotonic() - restarted
        if after > 0:
            self.count("cut by the kill, answered after the restart")
            with self.lock:
                self.answered_late.append(after)
            if after > CRASH_RETRY_SECONDS:
                self.fail(f"key {key} was in flight at the kill and answered only {after:.1f} s after the restart")

    def record(self, kind, site, path, key, body, outcome, rng):
        status, headers, raw = outcome
        if self.outage_answer(status):
            self.count(f"refused {status} in the outage, given up")
            return
        if status >= 500:
            self.fail(f"{kind} {key}: {status} {raw[:300]!r}")
            return
        if not 200 <= status < 300:
            self.count(f"refused {status}")
            return
        answer = json.loads(raw)
        with self.lock:
            self.acknowledged.append((kind, site, key, body, answer))
            if kind in ("new", "switch"):
                self.subscriptions[site].append(answer["subscriptionId"])
                self.names[answer["subscriptionId"]] = body["name"]
            if kind in ("switch", "cancel"):
                gone = path.split("/subscriptions/")[1].split(":")[0]
                if gone in self.subscriptions[site]:
                    self.subscriptions[site].remove(gone)
        self.count(f"acknowledged {kind}")
        roll = rng.random()
        if roll < 0.14:
            again = call(self.servers.base(rng), "POST", path, self.token, body, key)
            if self.unsettled(key, again[0], again[2]):
                again = self.settle(path, body, key, again) or again
            if again[0] != status or again[2] != raw or again[1].get("idempotent-replayed") != "true":
                self.fail(f"replay of {key} differs: {again[0]} {again[2][:200]!r} against {status} {raw[:200]!r}")
            self.count("replayed")
        elif roll < 0.22:
            other = dict(body, name=self.next_name()) if "name" in body else dict(body, ifCreateInvoice=not body["ifCreateInvoice"])
            reused = call(self.servers.base(rng), "POST", path, self.token, other, key)
            if reused[0] not in (0, 422) and not self.outage_answer(reused[0]):  # 0: cut by the kill
                self.fail(f"key {key} reused with another body answered {reused[0]} {reused[2][:200]!r}")
            self.count("reused")

    def one(self, rng):
        kind, site, path, body = self.apply(rng)
        key = str(uuid.uuid4())
        with self.lock:
            self.first_sent[key] = time.monotonic()
        roll = rng.random()
        if roll < 0.06:
            outcomes = [None, None]

            def send(i):
                outcomes[i] = call(self.servers.base(rng), "POST", path, self.token, body, key)
                if outcomes[i][0] == 0:
                    self.cut.add(key)

            twins = [threading.Thread(target=send, args=(i,)) for i in range(2)]
            for t in twins:
                t.start()
            for t in twins:
                t.join()
            self.count("sent twice at once")
            for outcome in outcomes:
                if outcome[0] >= 500 and not self.outage_answer(outcome[0]):
                    self.fail(f"twin {key}: {outcome[0]} {outcome[2][:300]!r}")
            unsettled = any(o[0] in (0, 409) or self.outage_answer(o[0]) for o in outcomes)
            outcome = self.settle(path, body, key, (0, {}, b"")) if unsettled else outcomes[0]
        elif roll < 0.09:
            abandon(self.servers.base(rng), path, self.token, body, key)
            self.count("abandoned")
            outcome = self.settle(path, body, key, (0, {}, b""))
        else:
            outcome = call(self.servers.base(rng), "POST", path, self.token, body, key)
            if outcome[0] == 0:
                self.cut.add(key)
            # Refused while the database was away: half retried with the key, half
            # given up. Never a 503003 (the outcome unknown): whether it is stored
            # is what the retry learns, so a client that gave up could not tell.
            retry_refused = rng.random() < 0.5 or b"503003" in outcome[2]
            if outcome[0] == 0 or (outcome[0] == 409 and b"409003" in outcome[2]) or (self.outage_answer(outcome[0]) and retry_refused):
                if self.outage_answer(outcome[0]):
                    self.count(f"refused {outcome[0]} in the outage, retried with its key")
                outcome = self.settle(path, body, key, outcome)
        if outcome:
            self.record(kind, site, path, key, body, outcome, rng)

    def race(self, rng):
        """A write racing the applies: the configuration's currency, or a subscription's flags."""
        site = self.pick_site(rng)
        if rng.random() < 0.5:
            currency = rng.choice(["USD", "EUR"])
            body = {"billingPeriod": "monthly", "currencyId": currency, "paymentTermValue": 30}
            status, _, raw = call(self.servers.base(rng), "PUT", f"/api/billing/siteBillingConfigs/{site}", self.token, body)
            expected = (200, 409)
        else:
            target = self.pick_subscription(rng, site)
            if not target:
                return
            body = {"name": self.names[target], "isServicePlan": False, "canBeCancelledByCustomer": True, "isShowCancel": True, "isShowUpgrade": True}
            status, _, raw = call(self.servers.base(rng), "PUT", f"/api/billing/subscriptions/{target}", self.token, body)
            expected = (200, 409)
        if status not in expected and status != 0 and not self.outage_answer(status):
            self.fail(f"racing PUT answered {status} {raw[:300]!r}")
        self.count(f"racing put {status}")

    def client(self, number, until):
        rng = random.Random(self.seed * 1000 + number)
        while time.monotonic() < until:
            if rng.random() < 0.12:
                self.race(rng)
            else:
                self.one(rng)

    def run(self):
        until = time.monotonic() + self.seconds
        threads = [threading.Thread(target=self.client, args=(n, until)) for n in range(self.clients)]
        for t in threads:
            t.start()
        if self.outage:
            time.sleep(self.seconds / 5)
            self.outage_window = (time.monotonic(), float("inf"))
            what = self.outage()
            self.outage_back = time.monotonic()
            self.outage_window = (self.outage_window[0], self.outage_back + OUTAGE_GRACE_SECONDS)
            print(f"    {what}; back {self.outage_back - self.outage_window[0]:.1f} s after it began", flush=True)
        time.sleep(max(0.0, self.seconds / 2 - (time.monotonic() - (until - self.seconds))))
        print(f"    kill -9 of instance 0 at {self.seconds / 2:.0f} s, then started again", flush=True)
        killed = time.monotonic()
        self.servers.kill_and_restart(0)
        self.restarted_at = time.monotonic()
        print(f"    instance 0 ready again {self.restarted_at - killed:.2f} s after the kill", flush=True)
        for t in threads:
            t.join()


class FullDisk:
    """A tmpfs of its own for the SQLite file; called, it fills the tmpfs to its
    last byte, holds it full for DISK_FULL_SECONDS, and makes room again."""

    def __init__(self, work, url):
        self.mount = os.path.join(work, "disk")
        os.makedirs(self.mount)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256M", "tmpfs", self.mount], check=True)
        name = os.path.basename(url.removeprefix("sqlite:").removeprefix("//").split("?")[0]) or "bank.db"
        self.url = f"sqlite://{self.mount}/{name}?mode=rwc"

    def __call__(self):
        filler = os.path.join(self.mount, "filler")
        written = 0
        with open(filler, "wb", buffering=0) as f:
            for size in (1 << 20, 1 << 12, 1):
                block = b"\0" * size
                try:
                    while True:
                        written += f.write(block) or 0
                except OSError:
                    pass
        time.sleep(DISK_FULL_SECONDS)
        os.unlink(filler)
        return f"disk full for {DISK_FULL_SECONDS:.0f} s ({written / (1 << 20):.0f} MiB of filler)"

    def close(self):
        subprocess.run(["umount", self.mount], check=False)


def restart_database(command):
    """The phase of `--restart-database`: the command, as a shell runs it."""
    def outage():
        subprocess.run(command, shell=True, executable="/bin/bash", check=True)
        return "the database restarted"
    return outage


class Database:
    """Read-only checks in the database the servers share."""

    def __init__(self, url):
        self.url = url
        if url.startswith("sqlite:"):
            path = url.removeprefix("sqlite:").removeprefix("//").split("?")[0]
            self.sqlite = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        else:
            self.sqlite = None

    def rows(self, sql):
        if self.sqlite:
            return [tuple(norm(v) for v in row) for row in self.sqlite.execute(sql).fetchall()]
        out = subprocess.run(["psql", self.url, "-At", "-F", "\t", "-c", sql], check=True, capture_output=True, text=True).stdout
        return [tuple(None if v == "" else v for v in line.split("\t")) for line in out.splitlines()]


def norm(value):
    if isinstance(value, bytes) and len(value) == 16:
        return str(uuid.UUID(bytes=value))
    return value


def money(value):
    return decimal.Decimal(str(value)).quantize(decimal.Decimal("0.01"))


def check(run, db):
    failures = run.failures
    sites = ",".join(map(str, SITES))
    # No key stranded: every key of the partner is done.
    stranded = db.rows("SELECT key FROM idempotency_keys WHERE state <> 'done' AND partner_id = 1")
    if stranded:
        failures.append(f"{len(stranded)} keys still in flight: {stranded[:5]}")
    # Each apply's subscription once; the invoices are exactly the acknowledged ones.
    names = {}
    for name, in db.rows(f"SELECT name FROM subscriptions WHERE site_id IN ({sites})"):
        names[name] = names.get(name, 0) + 1
    twice = [n for n, c in names.items() if c > 1]
    if twice:
        failures.append(f"subscriptions made twice for one request: {twice[:5]}")
    acknowledged_names = {body["name"] for kind, _, _, body, _ in run.acknowledged if kind in ("new", "switch")}
    missing = acknowledged_names - set(names)
    if missing:
        failures.append(f"acknowledged subscriptions missing: {sorted(missing)[:5]}")
    unacknowledged = set(names) - acknowledged_names
    if unacknowledged:
        failures.append(f"subscriptions no acknowledged request made: {sorted(unacknowledged)[:5]}")
    invoices = {row[0]: row for row in db.rows(f"SELECT id, site_id, status, currency_id, amount, tax, total FROM invoices WHERE site_id IN ({sites})")}
    expected = sum(1 for kind, *_ in run.acknowledged if kind in ("new", "switch"))
    for kind, _, key, _, answer in run.acknowledged:
        if kind in ("cancel", "changes") and answer["invoiceId"] != NIL:
            expected += 1
            row = invoices.get(answer["invoiceId"])
            if not row:
                failures.append(f"the invoice of {key} is missing")
            elif (money(row[4]), money(row[5])) != (money(answer["amount"]), money(answer["tax"])):
                failures.append(f"invoice {row[0]} holds {row[4]}/{row[5]}, its answer said {answer['amount']}/{answer['tax']}")
    if len(invoices) != expected:
        failures.append(f"{len(invoices)} invoices on the bank's sites, {expected} acknowledged")
    # Lines sum to their invoices; each credit cancels one charge line, once.
    lines = db.rows(f"SELECT invoice_id, amount, tax, type, id, cancelled_invoice_line_item_id FROM invoice_line_items WHERE site_id IN ({sites})")
    sums = {}
    for invoice_id, amount, tax, *_ in lines:
        a, t = sums.get(invoice_id, (decimal.Decimal(0), decimal.Decimal(0)))
        sums[invoice_id] = (a + money(amount), t + money(tax))
    for invoice_id, row in invoices.items():
        if sums.get(invoice_id, (0, 0)) != (money(row[4]), money(row[5])):
            failures.append(f"the lines of invoice {invoice_id} sum to {sums.get(invoice_id)}, it says {row[4]}/{row[5]}")
    kinds = {line[4]: line[3] for line in lines}
    cancelled = [line[5] for line in lines if line[3] == "credit"]
    if any(kinds.get(target) not in ("charge",) for target in cancelled):
        failures.append("a credit points at no charge line")
    if len(cancelled) != len(set(cancelled)):
        failures.append("a charge line is credited twice")
    # Balances: the sum of unpaid and credit invoices, in the configuration's currency.
    for site, balance, currency in db.rows(f"SELECT site_id, balance, currency_id FROM site_billing_configs WHERE site_id IN ({sites})"):
        owed = [row for row in invoices.values() if int(row[1]) == int(site) and row[2] in ("unpaid", "credit")]
        total = sum((money(row[6]) for row in owed), decimal.Decimal(0))
        if money(balance) != total:
            failures.append(f"site {site}: balance {balance}, its unpaid and credit invoices sum to {total}")
        # The currency changes only at a zero balance: what is owed in another one sums to zero.
        other = sum((money(row[6]) for row in owed if row[3] != currency), decimal.Decimal(0))
        if other != 0:
            failures.append(f"site {site}: a balance in {currency} holds {other} owed in another currency")
    # Cancelled subscriptions are read-only.
    shown = db.rows(f"SELECT id FROM subscriptions WHERE site_id IN ({sites}) AND status = 'cancelled' AND (is_show_cancel OR is_show_upgrade)")
    if shown:
        failures.append(f"{len(shown)} cancelled subscriptions still show cancel or upgrade")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--instances", type=int, default=1)
    parser.add_argument("--clients", type=int, default=24)
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--disk-full", action="store_true", help="SQLite: the file on a tmpfs filled for a while (root)")
    parser.add_argument("--restart-database", metavar="CMD", help="a shell command that restarts the database, run once")
    args = parser.parse_args()
    log_dir = tempfile.mkdtemp(prefix="bank-test-")
    outage, disk = None, None
    if args.disk_full and os.geteuid() != 0:
        print("    the disk-full phase skipped: mounting a tmpfs needs root", flush=True)
    elif args.disk_full:
        disk = outage = FullDisk(log_dir, args.database_url)
        atexit.register(disk.close)
        args.database_url = disk.url
    elif args.restart_database:
        outage = restart_database(args.restart_database)
    env = dict(os.environ, SWITCHBOARD_DATABASE_URL=args.database_url, SWITCHBOARD_SECRET=SECRET)
    servers = Servers(args.bin, args.database_url, args.instances, log_dir)
    try:
        data = os.path.join(log_dir, "bank.json")
        with open(data, "w") as f:
            json.dump(data_set(), f)
        subprocess.run([args.bin, "seed", "--file", data], env=env, check=True, stdout=subprocess.DEVNULL)
        token = subprocess.run([args.bin, "token", "--partner", "1", "--email", "admin@partner1.example"], env=env, check=True,
                               capture_output=True, text=True).stdout.strip()
        run = Run(servers, token, args.seconds, args.clients, args.seed)
        run.outage = outage
        started = time.monotonic()
        run.run()
        print(f"    {args.clients} clients for {time.monotonic() - started:.0f} s on {args.instances} instance(s): "
              + ", ".join(f"{k} {v}" for k, v in sorted(run.counts.items())), flush=True)
        if run.answered_late:
            print(f"    keys cut by the kill: {len(run.answered_late)}, answered at most "
                  f"{max(run.answered_late):.2f} s after the restart (bound {CRASH_RETRY_SECONDS:.0f} s)", flush=True)
        if outage and not any(what.startswith("refused 50") for what in run.counts):
            run.failures.append("no write was refused during the outage phase: it tested nothing")
        check(run, Database(args.database_url))
    finally:
        servers.stop()
    if not run.failures:
        # The state the run left, exported, loaded into a sandbox and taken again (docs/decisions/test-mode.md).
        found, summary = snapshot_round_trip.round_trip(args.bin, env, 1, log_dir)
        run.failures.extend(f"snapshot round trip: {problem}" for problem in found[:40])
        if not found:
            print(f"    the state, exported, loaded into a sandbox and taken again is the same up to ids: {summary}", flush=True)
    if run.failures:
        print(f"    FAILED ({len(run.failures)}); server logs in {log_dir}")
        for failure in run.failures[:40]:
            print("     -", failure)
        sys.exit(1)
    print("    every invariant holds")


if __name__ == "__main__":
    main()
