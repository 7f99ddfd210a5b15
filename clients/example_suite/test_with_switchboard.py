"""What an integrator's CI can test against switchboard's test mode: data of
its own per test, billing through time, what the client sent, and its retry
code against provoked failures (docs/testing-with-switchboard.md)."""

import datetime
import json
import pathlib
import uuid

import httpx
import pytest
from billing_client import models as billing_models
from billing_client.api.site_billing_configs import get_site_billing_config
from billing_client.api.subscription_operations import add_subscription
from billing_client.api.subscriptions import list_subscriptions
import test_client
from conftest import Sandbox, sign_in
from platform_client import models as platform_models
from platform_client.api.secure_forms import list_secure_forms
from test_client import models as test_models
from test_client.api.test_clock import advance_test_clock
from test_client.api.test_faults import create_test_fault
from test_client.api.test_journal import list_test_requests
from test_client.api.test_sandboxes import create_test_sandbox, delete_test_sandbox, reset_test_sandbox

PLATFORM_PLAN = billing_models.PlanRequest.from_dict({"planId": 4, "name": "Platform"})


def add_platform_plan(sandbox: Sandbox, key: str | None = None):
    kwargs = {"idempotency_key": key} if key else {}
    return add_subscription.sync_detailed(client=sandbox.billing, body=PLATFORM_PLAN, site_id=sandbox.site_id, agent_id=sandbox.agent_id, **kwargs)


def subscription_count(sandbox: Sandbox) -> int:
    listed = list_subscriptions.sync(client=sandbox.billing, site_id=sandbox.site_id)
    assert isinstance(listed, list), listed
    return len(listed)


def test_each_test_has_data_of_its_own(sandbox: Sandbox, server: str):
    before = subscription_count(sandbox)
    assert add_platform_plan(sandbox).status_code == 200
    assert subscription_count(sandbox) == before + 1
    # A reset brings the sandbox back to exactly its first state.
    reset = reset_test_sandbox.sync(sandbox.answer.partner_id, client=sandbox.test_mode)
    assert isinstance(reset, test_models.TestSandbox)
    assert subscription_count(sign_in(server, reset)) == before


def test_an_agent_of_the_sandbox_sees_its_own_site(sandbox: Sandbox):
    page = list_secure_forms.sync(client=sandbox.platform)
    assert isinstance(page, platform_models.SecureFormPage)
    assert [form.name for form in page.secure_forms] == ["Card payment", "Retired survey"], "the demo site's forms, under the sandbox's ids"


def test_a_renewal_after_advancing_the_clock(sandbox: Sandbox):
    config = get_site_billing_config.sync(sandbox.site_id, client=sandbox.billing)
    assert isinstance(config, billing_models.SiteBillingConfig)
    due = config.next_billing_date
    advanced = advance_test_clock.sync(client=sandbox.test_mode, body=test_models.TestClockAdvance(to=due))
    assert isinstance(advanced, test_models.TestClockAdvanced)
    assert advanced.renewals == 1, "site 10000's copy renews once, before the answer"
    after = get_site_billing_config.sync(sandbox.site_id, client=sandbox.billing)
    assert after.next_billing_date == datetime.datetime(2027, 1, 1, tzinfo=datetime.timezone.utc)


def test_the_journal_shows_what_the_client_sent(sandbox: Sandbox):
    assert add_platform_plan(sandbox, key="order-1").status_code == 200
    journal = list_test_requests.sync(client=sandbox.test_mode, operation_id=test_models.ListTestRequestsOperationId.ADDSUBSCRIPTION)
    assert isinstance(journal, list) and len(journal) == 1
    sent = journal[0]
    assert (sent.status, sent.idempotency_key, sent.method) == (200, "order-1", "POST")
    assert sent.request_body.to_dict()["planId"] == 4


def test_a_retry_after_503_succeeds(sandbox: Sandbox):
    fault = test_models.TestFaultInput(
        operation_id=test_models.TestFaultInputOperationId.ADDSUBSCRIPTION, kind=test_models.FaultKind.STATUS, status=503
    )
    assert isinstance(create_test_fault.sync(client=sandbox.test_mode, body=fault), test_models.TestFault)
    first = add_platform_plan(sandbox, key="retry-503")
    assert first.status_code == 503 and first.headers["retry-after"] == "1"
    assert add_platform_plan(sandbox, key="retry-503").status_code == 200


def test_a_lost_answer_retried_with_its_key_is_billed_once(sandbox: Sandbox):
    before = subscription_count(sandbox)
    fault = test_models.TestFaultInput(operation_id=test_models.TestFaultInputOperationId.ADDSUBSCRIPTION, kind=test_models.FaultKind.DROPAFTERCOMMIT)
    assert isinstance(create_test_fault.sync(client=sandbox.test_mode, body=fault), test_models.TestFault)
    key = str(uuid.uuid4())
    with pytest.raises(httpx.TransportError):
        add_platform_plan(sandbox, key=key)
    retried = add_platform_plan(sandbox, key=key)
    assert retried.status_code == 200 and retried.headers["idempotent-replayed"] == "true"
    assert subscription_count(sandbox) == before + 1, "committed once, answered from the stored answer"


def test_an_annual_subscription_started_eleven_months_ago_carries_its_balance(server: str):
    """A state no API call reaches in one step, from a committed fixture whose
    dates are relative to the sandbox's clock (examples/fixtures/): it stays
    true next year."""
    fixture = pathlib.Path(__file__).resolve().parents[2] / "examples" / "fixtures" / "annual-eleven-months.json"
    body = test_models.TestSandboxInput.from_dict({"dataSet": json.loads(fixture.read_text())})
    created = create_test_sandbox.sync(client=test_client.Client(base_url=server), body=body)
    assert isinstance(created, test_models.TestSandbox), created
    sandbox = sign_in(server, created)
    try:
        assert created.sites[0].twin_of == 70000  # the fixture's label of the site
        config = get_site_billing_config.sync(sandbox.site_id, client=sandbox.billing)
        assert isinstance(config, billing_models.SiteBillingConfig), config
        assert config.billing_period == billing_models.BillingPeriod.ANNUAL
        assert config.balance == 1104.15  # 5 agents x 204.00 + 8.25 % tax, unpaid
        now = created.now
        started, renews = config.billing_start_date, config.next_billing_date
        assert (now - started).days in range(330, 337), (now, started)  # eleven months ago
        assert (renews - now).days in range(27, 32), (now, renews)  # a month to go
    finally:
        delete_test_sandbox.sync_detailed(created.partner_id, client=sandbox.test_mode)


def test_the_client_survives_a_property_it_does_not_know(sandbox: Sandbox):
    """An API adds properties over time: the generated client must keep working (docs/testing-with-switchboard.md, faults)."""
    fault = test_models.TestFaultInput(
        operation_id=test_models.TestFaultInputOperationId.LISTSUBSCRIPTIONS, kind=test_models.FaultKind.EXTRAPROPERTIES
    )
    assert isinstance(create_test_fault.sync(client=sandbox.test_mode, body=fault), test_models.TestFault)
    listed = list_subscriptions.sync(client=sandbox.billing, site_id=sandbox.site_id)
    assert isinstance(listed, list) and listed, listed
    assert listed[0].additional_properties["unexpectedProperty"] == "added by a test fault (extraProperties)"


# One test per remaining fault kind: what a client meets, and what it should do
# (the test document's FaultKind says each).


def arm(sandbox: Sandbox, operation: str, kind: str, **extra) -> None:
    body = test_models.TestFaultInput.from_dict({"operationId": operation, "kind": kind, **extra})
    assert isinstance(create_test_fault.sync(client=sandbox.test_mode, body=body), test_models.TestFault)


def test_a_delayed_answer_meets_the_clients_timeout(sandbox: Sandbox):
    arm(sandbox, "listSubscriptions", "delay", delayMs=1500)
    impatient = sandbox.billing.with_timeout(httpx.Timeout(0.3))
    with pytest.raises(httpx.TimeoutException):
        list_subscriptions.sync(client=impatient, site_id=sandbox.site_id)
    # A read is safe to send again; the fault acted once.
    assert isinstance(list_subscriptions.sync(client=sandbox.billing, site_id=sandbox.site_id), list)


def test_a_connection_reset_after_the_commit_is_retried_with_its_key(sandbox: Sandbox):
    before = subscription_count(sandbox)
    arm(sandbox, "addSubscription", "resetBeforeAnswer")
    key = str(uuid.uuid4())
    with pytest.raises(httpx.TransportError):  # "connection reset by peer"
        add_platform_plan(sandbox, key=key)
    retried = add_platform_plan(sandbox, key=key)
    assert retried.status_code == 200 and retried.headers["idempotent-replayed"] == "true"
    assert subscription_count(sandbox) == before + 1


def test_an_html_error_page_is_reported_not_parsed(sandbox: Sandbox):
    arm(sandbox, "listSubscriptions", "notJson")
    answered = list_subscriptions.sync_detailed(client=sandbox.billing, site_id=sandbox.site_id)
    # An undocumented status: the generated client parses nothing and the suite sees why.
    assert answered.status_code == 502 and answered.parsed is None
    assert answered.headers["content-type"].startswith("text/html") and b"<html" in answered.content.lower()


def test_a_body_under_another_content_type_is_refused_by_a_careful_client(sandbox: Sandbox):
    arm(sandbox, "listSubscriptions", "wrongContentType")
    answered = list_subscriptions.sync_detailed(client=sandbox.billing, site_id=sandbox.site_id)
    # The generated client parses JSON whatever the header says; a careful one checks it first.
    assert answered.status_code == 200
    assert not answered.headers["content-type"].startswith("application/json"), answered.headers


def test_a_truncated_body_fails_the_call_and_a_retry_reads_it_whole(sandbox: Sandbox):
    arm(sandbox, "listSubscriptions", "truncatedBody")
    with pytest.raises(ValueError):  # json.JSONDecodeError
        list_subscriptions.sync(client=sandbox.billing, site_id=sandbox.site_id)
    assert isinstance(list_subscriptions.sync(client=sandbox.billing, site_id=sandbox.site_id), list)


def test_an_open_enum_keeps_a_value_it_does_not_know(sandbox: Sandbox):
    arm(sandbox, "getSiteBillingConfig", "unknownEnumValue")
    config = get_site_billing_config.sync(sandbox.site_id, client=sandbox.billing)
    # `billingPeriod` is open (x-extensible-enum): a string, so the value is kept, not refused.
    assert isinstance(config, billing_models.SiteBillingConfig), config
    assert config.billing_period == "unknownValue"


def test_a_trickling_body_is_read_within_a_read_timeout_shorter_than_it(sandbox: Sandbox):
    arm(sandbox, "listSubscriptions", "slowBody", delayMs=1500)
    # httpx's read timeout bounds each wait for the next bytes, not the whole body.
    patient_per_read = sandbox.billing.with_timeout(httpx.Timeout(5.0, read=1.0))
    started = datetime.datetime.now()
    listed = list_subscriptions.sync(client=patient_per_read, site_id=sandbox.site_id)
    assert isinstance(listed, list) and listed
    assert (datetime.datetime.now() - started).total_seconds() >= 1.2
