#!/usr/bin/env python3
"""A data set (the `switchboard seed --file` format) of COUNT sites of a new
partner PARTNER, from site id FIRST on, each one renewal due: billed monthly
from 2026-01-01, its next billing date the first day of this month (UTC, the
data set's clock), a billing profile in California with a card that settles,
and the subscriptions of demo site 10000 (Team, 5 agents; Bot Actions, quota and overage) under new
ids. The renewal benchmark of scripts/bench.sh renews them in one pass.

    bench_due_sites.py PARTNER FIRST COUNT > due.json
"""
import copy, datetime, json, pathlib, sys, uuid

partner, first, count = (int(arg) for arg in sys.argv[1:4])
demo = json.loads((pathlib.Path(__file__).resolve().parent.parent / "crates/data-sets/src/demo.json").read_text())
template = [s for s in demo["subscriptions"] if s["siteId"] == 10000]
today = datetime.datetime.now(datetime.timezone.utc)
due = today.replace(day=1, hour=0, minute=0, second=0, microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
# The data set's clock is the due date: a next billing date the clock has
# passed is a state the API never leaves behind, so a loader refuses it; the
# partner's clock is frozen there, and the pass renews each site once.
data = {"clock": due, "partners": [{"id": partner, "name": f"Renewal bench {partner}"}], "sites": [], "siteBillingConfigs": [],
        "siteBillingProfiles": [], "subscriptions": []}
for site in range(first, first + count):
    data["sites"].append({"id": site, "partnerId": partner, "platformId": 1, "company": f"Renewal {site}"})
    data["siteBillingConfigs"].append({"siteId": site, "billingPeriod": "monthly", "currencyId": "USD", "paymentTerm": "Net 30",
                                       "paymentTermValue": 30, "billingStartDate": "2026-01-01T00:00:00Z", "nextBillingDate": due,
                                       "balance": 0.0, "purchasedAgents": 5})
    data["siteBillingProfiles"].append({"siteId": site, "firstName": "Renewal", "lastName": "Bench", "companyName": f"Renewal {site}",
                                        "email": f"billing@site{site}.example", "countryOrRegion": "US", "stateOrProvince": "CA",
                                        "city": "San Francisco", "mailingAddress": "1 Market St", "postalOrZipCode": "94105",
                                        "billTo": f"Renewal {site}", "isChargedAutomatically": True, "isEPayment": True,
                                        "primaryPaymentTypeId": "card", "nameOnPrimaryCard": "Renewal Bench",
                                        "primaryCardNumber": "4242424242424242", "primaryCardExpirationDate": "2030-12-31T00:00:00Z"})
    for s in template:
        s = copy.deepcopy(s)
        s["id"], s["siteId"] = str(uuid.uuid4()), site
        for m in s["subscriptionPricingModels"]:
            m["id"] = str(uuid.uuid4())
        data["subscriptions"].append(s)
json.dump(data, sys.stdout)
