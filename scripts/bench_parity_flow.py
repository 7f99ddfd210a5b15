"""A flow of COUNT exchanges through a proxy (scripts/bench_parity.sh): the two
sign-ins, then secure forms created, read and listed, and the partner's site,
products and subscriptions read, in turn, until COUNT exchanges have passed.

    python3 scripts/bench_parity_flow.py BASE COUNT
"""

import json
import sys
import urllib.parse
import urllib.request

BASE, COUNT = sys.argv[1], int(sys.argv[2])


def send(method, path, token=None, body=None, form=None):
    headers = {}
    data = None
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    if form is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        data = urllib.parse.urlencode(form).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            text = answer.read()
    except urllib.error.HTTPError as error:
        text = error.read()
    return json.loads(text) if text else None


def sign_in(path, email):
    return send("POST", path, form={"grant_type": "password", "email": email, "password": "demo-password"})["access_token"]


platform = sign_in("/oauth/token", "admin@site10000.example")
partner = sign_in("/api/oauth/token", "admin@partner1.example")
sent = 2
form = {"name": "Bench", "description": "bench form", "greetingMessage": "<p>Hello</p>", "color": "#abc", "submitButtonText": "Send",
        "fields": [{"name": "card", "displayName": "Card", "type": "cardNumber", "order": 1, "isRequired": True}]}
steps = 0
form_id = None
while sent < COUNT:
    step = steps % 6
    steps += 1
    if step == 0:
        created = send("POST", "/v4/secureform/secureForms", platform, dict(form, name=f"Bench {steps}"))
        if "id" not in created:
            sys.exit(f"creating a form answered {created}")
        form_id = created["id"]
    elif step == 1:
        send("GET", f"/v4/secureform/secureForms/{form_id}", platform)
    elif step == 2:
        send("GET", "/v4/secureform/secureForms?pageSize=20", platform)
    elif step == 3:
        send("GET", "/api/billing/sites/10000", partner)
    elif step == 4:
        send("GET", "/api/billing/products", partner)
    else:
        send("GET", "/api/billing/subscriptions?siteId=10000", partner)
    sent += 1
print(f"flow: {sent} exchanges", file=sys.stderr)
