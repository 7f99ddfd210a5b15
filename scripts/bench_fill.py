"""Creates secure forms through the API until the site holds a given number
(scripts/bench.sh): 8 threads, each on one kept-alive connection.

    python3 scripts/bench_fill.py <base-url> <site-token> <count>
"""

import http.client
import json
import sys
import threading
import urllib.parse
import urllib.request

base, token, wanted = sys.argv[1], sys.argv[2], int(sys.argv[3])
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
request = urllib.request.Request(base + "/v4/secureform/secureForms?pageSize=1", headers=headers)
have = json.load(urllib.request.urlopen(request))["total"]
missing = max(0, wanted - have)
host = urllib.parse.urlsplit(base).netloc
lock = threading.Lock()
next_number = [have]


def worker() -> None:
    connection = http.client.HTTPConnection(host, timeout=30)
    while True:
        with lock:
            if next_number[0] >= have + missing:
                return
            number = next_number[0]
            next_number[0] += 1
        body = {"name": f"Form {number:07d}", "color": "#1a73e8", "greetingMessage": "Hello", "submitButtonText": "Pay",
                "fields": [{"name": "Card", "type": "cardNumber"}]}
        connection.request("POST", "/v4/secureform/secureForms", body=json.dumps(body), headers=headers)
        answer = connection.getresponse()
        answer.read()
        if answer.status != 201:
            sys.exit(f"creating form {number}: {answer.status}")


threads = [threading.Thread(target=worker) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(f"forms: {have} -> {have + missing}", file=sys.stderr)
