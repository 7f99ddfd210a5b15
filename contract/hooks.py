"""schemathesis hooks for switchboard's contract tests (SCHEMATHESIS_HOOKS=contract/hooks.py).

Every billing POST takes an optional `Idempotency-Key`. schemathesis draws the few
shortest valid keys ("0", "00", ...) again and again for different requests, and
reusing a key for another request is rightly refused (422 `422001`, as the IETF
Idempotency-Key draft asks). A client sends a fresh key per operation it means to
make safe to retry, so each request that carries a valid key gets a fresh one.
Negative cases are left alone (an invalid key, a missing Authorization header:
each still expected to be refused), and so are invalid keys. The idempotency rules
themselves are tested over HTTP in tests/api (replay, 422, 409, expiry, races).
"""

import re
import uuid

import schemathesis
from schemathesis.generation.modes import GenerationMode

HEADER = "Idempotency-Key"
VALID_KEY = re.compile(r"[!-~]{1,255}")


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.meta is not None and case.meta.generation.mode != GenerationMode.POSITIVE:
        return
    headers = case.headers or {}
    for name, value in headers.items():
        if name.lower() == HEADER.lower() and isinstance(value, str) and VALID_KEY.fullmatch(value):
            headers[name] = str(uuid.uuid4())
