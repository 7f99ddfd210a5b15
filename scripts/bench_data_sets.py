#!/usr/bin/env python3
"""Data sets in the benchmark (docs/decisions/test-mode.md; scripts/bench.sh --test-mode).

    bench_data_sets.py data SITES PARTNER > tenant.json
        A tenant of SITES sites of partner PARTNER (the format's labels): each
        site with an agent, a monthly billing configuration, a billing profile
        in California, the demo's Team subscription and an unpaid invoice of
        it; dates relative to the clock it loads at.

    bench_data_sets.py loads BASE FILE COUNT CLIENTS
        COUNT sandboxes made from FILE (inline) by CLIENTS at once on the
        test-mode server at BASE; prints "<count> <seconds> <median ms> <p90 ms>".

    bench_data_sets.py during BASE FILE SECONDS CLIENTS
        CLIENTS making sandboxes from FILE one after another for SECONDS (the
        load beside which another tenant's reads are measured); prints as above.

    bench_data_sets.py tenants BASE FILE SECONDS
        Tenants' writes beside loads: 8 tenants (empty sandboxes) each create
        a secure form 5 times a second for SECONDS alone, then for SECONDS
        beside 20 clients each creating a sandbox from FILE and deleting it,
        in a loop; prints one JSON object: the tenants' p99 (ms) and refusals
        alone and beside, the loads' answers by status, their slowest (ms),
        and the tenants' journal entries beside the requests they answered.

    bench_data_sets.py growth BASE FILE KEPT
        A sandbox from FILE created and deleted 5 times on a fresh server,
        then KEPT sandboxes of it created and kept, then 5 more created and
        deleted beside them; prints "<median ms fresh> <median ms beside
        KEPT> <ratio>" (load time flat with the server's size: target 1.3).

    bench_data_sets.py export BIN PARTNER OUT
        `BIN data-set export --partner PARTNER > OUT` (its database in the
        environment): prints "<seconds> <peak KiB> <bytes>".
"""

import concurrent.futures
import copy
import json
import pathlib
import resource
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent


def label(kind, partner, n):
    """A stable UUID label of the data set (uuid5: the same file every time)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"switchboard-bench/{partner}/{kind}/{n}"))


def data(sites, partner):
    demo = json.loads((ROOT / "crates/data-sets/src/demo.json").read_text())
    team = next(s for s in demo["subscriptions"] if s["siteId"] == 10000 and s["name"] == "Team")
    out = {"format": 1, "partners": [{"id": partner, "name": f"Bench tenant {partner}"}],
           "partnerUsers": [{"id": label("user", partner, 0), "partnerId": partner, "email": f"admin@partner{partner}.example",
                             "permissions": ["ManageSite", "ManageFeature", "ManageProduct", "ManageInvoice"]}],
           "sites": [], "agents": [], "siteBillingConfigs": [], "siteBillingProfiles": [], "subscriptions": [], "invoices": []}
    for n in range(sites):
        site = partner * 1000 + n
        out["sites"].append({"id": site, "partnerId": partner, "platformId": 1, "company": f"Bench site {site}"})
        out["agents"].append({"id": label("agent", partner, n), "siteId": site, "email": f"admin@site{site}.example",
                              "displayName": "Bench Admin", "isAdmin": True})
        out["siteBillingConfigs"].append({"siteId": site, "billingPeriod": "monthly", "currencyId": "USD", "paymentTerm": "Net 30",
                                          "paymentTermValue": 30, "billingStartDate": "now-P10M", "purchasedAgents": 5})
        out["siteBillingProfiles"].append({"siteId": site, "firstName": "Bench", "lastName": "Billing", "companyName": f"Bench {site}",
                                           "email": f"billing@site{site}.example", "countryOrRegion": "US", "stateOrProvince": "CA",
                                           "city": "San Francisco", "mailingAddress": "1 Market St", "postalOrZipCode": "94105",
                                           "billTo": f"Bench {site}", "isChargedAutomatically": True, "isEPayment": True,
                                           "primaryPaymentTypeId": "card", "nameOnPrimaryCard": "Bench Billing",
                                           "primaryCardNumber": "4242424242424242", "primaryCardExpirationDate": "2030-12-31T00:00:00Z"})
        subscription = copy.deepcopy(team)
        model = label("model", partner, n)
        subscription.update({"id": label("subscription", partner, n), "siteId": site, "createdTime": "now-P10M"})
        subscription["subscriptionPricingModels"][0]["id"] = model
        out["subscriptions"].append(subscription)
        out["invoices"].append({"id": label("invoice", partner, n), "siteId": site, "status": "unpaid", "createdTime": "now-P1D",
                                "lineItems": [{"id": label("line", partner, n), "subscriptionPricingModelId": model, "name": "Agents",
                                               "unitPrice": 20.0, "unit": "agent", "quantity": 5, "serviceStartDate": "now-P1D",
                                               "serviceEndDate": "now+P20D", "months": "1", "licenseTerm": "monthly", "type": "charge"}]})
    return out


def create(base, body):
    request = urllib.request.Request(base + "/api/test/sandboxes", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=120) as answer:
        assert answer.status == 201, answer.status
        answer.read()
    return (time.monotonic() - started) * 1000


def loads(base, path, count, clients):
    body = json.dumps({"dataSet": json.loads(pathlib.Path(path).read_text())}).encode()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        times = sorted(pool.map(lambda _: create(base, body), range(count)))
    seconds = time.monotonic() - started
    print(f"{count} {seconds:.2f} {statistics.median(times):.0f} {times[int(len(times) * 0.9) - 1]:.0f}")


def export(binary, partner, out):
    """`data-set export` of PARTNER into OUT: prints "<seconds> <peak KiB> <bytes>"."""
    started = time.monotonic()
    with open(out, "w") as f:
        subprocess.run([binary, "data-set", "export", "--partner", partner], stdout=f, check=True)
    seconds = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"{seconds:.2f} {peak} {pathlib.Path(out).stat().st_size}")


def during(base, path, seconds, clients):
    """CLIENTS making sandboxes from FILE, one after another, for SECONDS."""
    body = json.dumps({"dataSet": json.loads(pathlib.Path(path).read_text())}).encode()
    deadline = time.monotonic() + seconds

    def worker(_):
        times = []
        while time.monotonic() < deadline:
            times.append(create(base, body))
        return times

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        times = sorted(t for ts in pool.map(worker, range(clients)) for t in ts)
    print(f"{len(times)} {seconds:.2f} {statistics.median(times):.0f} {times[int(len(times) * 0.9) - 1]:.0f}")


def call(base, method, path, body=None, token=None, timeout=120):
    """(status, parsed answer or None, milliseconds)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    request = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            text = answer.read()
            status = answer.status
    except urllib.error.HTTPError as err:
        text, status = err.read(), err.code
    took = (time.monotonic() - started) * 1000
    return status, (json.loads(text) if text and status < 300 else None), took


def growth(base, path, kept):
    """Load time on a fresh server and beside KEPT loaded sandboxes (the module's doc)."""
    body = json.dumps({"dataSet": json.loads(pathlib.Path(path).read_text())}).encode()

    def timed(times):
        took = []
        for _ in range(times):
            status, made, ms = call(base, "POST", "/api/test/sandboxes", body, timeout=300)
            assert status == 201, status
            call(base, "DELETE", f"/api/test/sandboxes/{made['partnerId']}", None, made["partner"]["accessToken"])
            took.append(ms)
        return statistics.median(took)

    fresh = timed(5)
    for _ in range(kept):
        status, _, _ = call(base, "POST", "/api/test/sandboxes", body, timeout=300)
        assert status == 201, status
    beside = timed(5)
    print(f"{fresh:.0f} {beside:.0f} {beside / fresh:.2f}")


def loader_process(base, body, seconds, clients):
    """CLIENTS creating a sandbox from BODY and deleting it, in a loop, for
    SECONDS: (status, ms) of each create."""
    deadline = time.monotonic() + seconds

    def loader(_):
        out = []
        while time.monotonic() < deadline:
            status, made, took = call(base, "POST", "/api/test/sandboxes", body, timeout=300)
            out.append((status, took))
            if made:
                call(base, "DELETE", f"/api/test/sandboxes/{made['partnerId']}", None, made["partner"]["accessToken"])
            elif status in (429, 503):
                time.sleep(1)
        return out

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        return [load for loads in pool.map(loader, range(clients)) for load in loads]


def tenants(base, path, seconds):
    """Tenants' writes alone and beside loads (the module's doc)."""
    load_body = json.dumps({"dataSet": json.loads(pathlib.Path(path).read_text())}).encode()
    tokens = []
    for _ in range(8):
        status, made, _ = call(base, "POST", "/api/test/sandboxes", b"{}")
        assert status == 201, status
        tokens.append(made["sites"][0]["agents"][0]["accessToken"])
    form = json.dumps({"name": "Tenant form", "color": "#1a73e8", "greetingMessage": "Hello", "submitButtonText": "Pay",
                       "fields": [{"name": "Card", "type": "cardNumber"}]}).encode()

    def tenant(token, deadline, out):
        while time.monotonic() < deadline:
            tick = time.monotonic()
            out.append(call(base, "POST", "/v4/secureform/secureForms", form, token, timeout=60)[::2])
            time.sleep(max(0.0, 0.2 - (time.monotonic() - tick)))

    def phase(loaders):
        deadline = time.monotonic() + seconds
        writes = []
        # The loaders in processes of their own: parsing their answers
        # would hold this one's interpreter lock from the tenants' timings.
        with concurrent.futures.ProcessPoolExecutor(2) as processes:
            batches = [processes.submit(loader_process, base, load_body, seconds, n)
                       for n in (loaders // 2, loaders - loaders // 2) if n]
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                for job in [pool.submit(tenant, t, deadline, writes) for t in tokens]:
                    job.result()
            loads = [load for batch in batches for load in batch.result()]
        times = sorted(took for status, took in writes)
        return {"writes": len(writes), "refused": sum(1 for status, _ in writes if status != 201),
                "p50": round(statistics.median(times), 1), "p90": round(times[int(len(times) * 0.9) - 1], 1), "p99": round(times[int(len(times) * 0.99) - 1], 1),
                "loads": {str(s): sum(1 for t, _ in loads if t == s) for s in sorted({t for t, _ in loads})},
                "slowest_load": round(max((took for _, took in loads), default=0))}

    alone = phase(0)
    beside = phase(20)
    journaled = 0
    for token in tokens:
        request = urllib.request.Request(base + "/api/test/requests?limit=1", headers={"Authorization": "Bearer " + token})
        with urllib.request.urlopen(request, timeout=60) as answer:
            journaled += int(answer.headers["X-Total-Count"])
    print(json.dumps({"alone": alone, "beside": beside, "p99_ratio": round(beside["p99"] / alone["p99"], 2),
                      "answered": alone["writes"] + beside["writes"], "journaled": journaled}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["data"]:
        json.dump(data(int(sys.argv[2]), int(sys.argv[3])), sys.stdout)
    elif sys.argv[1:2] == ["export"]:
        export(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1:2] == ["during"]:
        during(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1:2] == ["growth"]:
        growth(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1:2] == ["tenants"]:
        tenants(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif sys.argv[1:2] == ["loads"]:
        loads(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)
