"""schemathesis hooks for switchboard's contract tests (SCHEMATHESIS_HOOKS=contract/hooks.py).

Every billing POST and every creating POST of the platform takes an optional
`Idempotency-Key`. schemathesis draws the few
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


# Test mode's sandboxes: a sandbox is reset and deleted with its own partner
# token, which its creation answers with. The run's token (partner 1's) is
# rightly refused with 404 for every sandbox, so requests that name a sandbox
# this run created carry that sandbox's token instead, as a client would.
SANDBOX_TOKENS = {}


@schemathesis.hook("after_call")
def remember_sandbox_tokens(context, case, response):
    if case.method.upper() == "POST" and case.operation.path == "/api/test/sandboxes" and response.status_code == 201:
        import json

        sandbox = json.loads(response.content)
        SANDBOX_TOKENS[str(sandbox["partnerId"])] = sandbox["partner"]["accessToken"]


@schemathesis.hook("before_call")
def use_sandbox_tokens(context, case, kwargs):
    if not case.operation.path.startswith("/api/test/sandboxes/{partnerId}"):
        return
    # Negative cases (a missing Authorization header among them) stay as drawn.
    if case.meta is not None and case.meta.generation.mode != GenerationMode.POSITIVE:
        return
    token = SANDBOX_TOKENS.get(str((case.path_parameters or {}).get("partnerId")))
    if token is None:
        return
    # The run's --header is merged over the case's headers when the request is
    # built; requests applies `auth` after that.
    kwargs["auth"] = SandboxBearer(token)


class SandboxBearer:
    def __init__(self, token):
        self.token = token

    def __call__(self, request):
        request.headers["Authorization"] = f"Bearer {self.token}"
        return request


# Stateful links fill a request body from an earlier answer: a voicebot's
# `channel` read with `include=voicebotChannelInstance` carries `voiceChannel`,
# a name only answers have. The server takes such names back by design (a
# body read from an answer and sent back passes: docs/decisions/, "A typo
# never passes in silence"), while the document served in test mode closes
# request bodies (`additionalProperties: false`), so schemathesis would count
# the accepted body as schema-violating. A client building a body from a read
# keeps the request's own names; so does this, for positive cases.
@schemathesis.hook("before_call")
def keep_request_names(context, case, kwargs):
    if not isinstance(case.body, dict):
        return
    if case.meta is not None and case.meta.generation.mode != GenerationMode.POSITIVE:
        # A negative stateful case gets its `channel` from the link too (its
        # mutation is elsewhere, or was overwritten by the link: schemathesis
        # then reports "Invalid component: positive test case"); the channel
        # instance's read-only names go, the rest stays as drawn.
        channel = case.body.get("channel")
        if isinstance(channel, dict):
            for name in CHANNEL_ANSWER_NAMES:
                channel.pop(name, None)
        return
    raw = case.operation.schema.raw_schema
    schema = (case.operation.definition.raw.get("requestBody") or {}).get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return
    _strip(case.body, schema, raw, 0)
    if isinstance(kwargs.get("json"), dict):
        _strip(kwargs["json"], schema, raw, 0)


# The names an answered channel instance holds that a channel body does not.
CHANNEL_ANSWER_NAMES = ("id", "voiceChannel", "info")


def _names(schema, raw, depth):
    """The properties a (closed) request schema names, with their schemas; None if it names none."""
    if depth > 16 or not isinstance(schema, dict):
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        return _names(raw["components"]["schemas"].get(ref.rsplit("/", 1)[1], {}), raw, depth + 1)
    names = dict(schema.get("properties") or {}) if "properties" in schema else None
    for key in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(key) or []:
            more = _names(part, raw, depth + 1)
            if more is not None:
                names = {**(names or {}), **more}
    return names


def _strip(body, schema, raw, depth):
    names = _names(schema, raw, depth)
    if names is None or not isinstance(body, dict):
        return
    for key in [key for key in body if key not in names]:
        del body[key]
    for key, value in body.items():
        if isinstance(value, dict):
            _strip(value, names[key], raw, depth + 1)


# Test mode's sandbox creation: the document types an inline `dataSet` with the
# data set format's schema (so that generated clients have types for it). A
# data set drawn from that schema is almost never one a sandbox takes: its rows
# must agree with each other (one partner's sites, lines at their model's
# price, dates before the clock), which a schema cannot state, and those
# refusals are tested in tests/api (data_sets.rs). Positive cases that drew an
# object send the built-in `empty` instead, so that the run's sandboxes exist
# for the operations that follow (their snapshot, their reset).
@schemathesis.hook("before_call")
def sandboxes_from_a_named_data_set(context, case, kwargs):
    if case.method.upper() != "POST" or case.operation.path != "/api/test/sandboxes":
        return
    if case.meta is not None and case.meta.generation.mode != GenerationMode.POSITIVE:
        return
    for body in (case.body, kwargs.get("json")):
        if isinstance(body, dict) and isinstance(body.get("dataSet"), dict):
            body["dataSet"] = "empty"
