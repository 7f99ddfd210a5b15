"""An integrator's test suite against switchboard in test mode, written with
generated clients only (openapi-python-client, from the committed documents):
the pattern docs/testing-with-switchboard.md describes. Each test gets a
sandbox of its own, so tests run in parallel against one server without
seeing each other's data, and deletes it when done.

    clients/example_suite/generate-clients.sh /tmp/switchboard-clients   # the three client packages
    SWITCHBOARD_URL=http://127.0.0.1:8080 PYTHONPATH=/tmp/switchboard-clients pytest clients/example_suite

(scripts/test.sh runs it against a live server started with --test-mode, on
SQLite and on PostgreSQL.)"""

import datetime
import os
from dataclasses import dataclass

import pytest
from billing_client import AuthenticatedClient as BillingClient
from platform_client import AuthenticatedClient as PlatformClient
from test_client import AuthenticatedClient as TestModeClient
from test_client import Client as TestModePublic
from test_client import models as test_models
from test_client.api.test_sandboxes import create_test_sandbox, delete_test_sandbox

# The instant docs/billing.md's worked examples start from.
DOCS_TIME = datetime.datetime(2026, 11, 21, 15, 0, tzinfo=datetime.timezone.utc)


@dataclass
class Sandbox:
    """A sandbox and clients signed in to it."""

    answer: test_models.TestSandbox
    billing: BillingClient
    platform: PlatformClient
    test_mode: TestModeClient

    @property
    def site_id(self) -> int:
        return self.answer.sites[0].site_id

    @property
    def agent_id(self):
        return self.answer.sites[0].agents[0].agent_id


@pytest.fixture(scope="session")
def server() -> str:
    return os.environ.get("SWITCHBOARD_URL", "http://127.0.0.1:8080")


def sign_in(server: str, answer: test_models.TestSandbox) -> Sandbox:
    partner = answer.partner.access_token
    agent = answer.sites[0].agents[0].access_token
    return Sandbox(
        answer=answer,
        billing=BillingClient(base_url=server, token=partner),
        platform=PlatformClient(base_url=f"{server}/v4", token=agent),
        test_mode=TestModeClient(base_url=server, token=partner),
    )


@pytest.fixture
def sandbox(server: str):
    """Partner 1's demo data under new ids, its clock frozen at DOCS_TIME; deleted after the test."""
    created = create_test_sandbox.sync(
        client=TestModePublic(base_url=server),
        body=test_models.TestSandboxInput(data_set="demo", clock=DOCS_TIME),
    )
    assert isinstance(created, test_models.TestSandbox), created
    yield sign_in(server, created)
    deleted = delete_test_sandbox.sync_detailed(created.partner_id, client=TestModeClient(base_url=server, token=created.partner.access_token))
    assert deleted.status_code == 204
