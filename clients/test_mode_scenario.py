"""Test mode through generated clients only (openapi-python-client, from the
committed partner billing and test-mode documents; scripts/test.sh runs it
against a live server started with --test-mode): partner 1's clock read,
advanced to site 10000's next billing date (the renewal runs before the
answer: the site's next billing date moves one period on), read again; giving
it back while it is ahead of the system time is refused (409). Any unexpected
answer ends it with a non-zero exit."""

import sys

from billing_client import AuthenticatedClient as BillingClient
from billing_client import Client as BillingPublic
from billing_client.api.authentication import create_partner_token
from billing_client.api.site_billing_configs import get_site_billing_config
from billing_client.models import SiteBillingConfig
from billing_client.models import TokenRequestForm as PartnerPassword
from billing_client.models import TokenResponse as PartnerTokens
from test_client import AuthenticatedClient as TestClient
from test_client.api.test_clock import advance_test_clock, get_test_clock, unfreeze_test_clock
from test_client.models import TestClock, TestClockAdvance, TestClockAdvanced


def expect(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"test-mode scenario failed: {what}")


def main(server: str) -> None:
    tokens = create_partner_token.sync(
        client=BillingPublic(base_url=server),
        body=PartnerPassword.from_dict({"grant_type": "password", "email": "admin@partner1.example", "password": "demo-password"}),
    )
    expect(isinstance(tokens, PartnerTokens), "partner token")
    billing = BillingClient(base_url=server, token=tokens.access_token)
    clock_api = TestClient(base_url=server, token=tokens.access_token)

    clock = get_test_clock.sync(client=clock_api)
    expect(isinstance(clock, TestClock) and clock.frozen is False, f"a clock that runs with the system: {clock}")
    config = get_site_billing_config.sync(site_id=10000, client=billing)
    expect(isinstance(config, SiteBillingConfig), "site 10000's billing configuration")
    due = config.next_billing_date

    advanced = advance_test_clock.sync(client=clock_api, body=TestClockAdvance(to=due))
    expect(isinstance(advanced, TestClockAdvanced), f"advance: {advanced}")
    expect(advanced.frozen and advanced.now == due and advanced.renewals >= 1, f"advance renews site 10000: {advanced}")
    after = get_site_billing_config.sync(site_id=10000, client=billing)
    expect(isinstance(after, SiteBillingConfig) and after.next_billing_date > due, f"next billing date moved on: {after}")
    clock = get_test_clock.sync(client=clock_api)
    expect(isinstance(clock, TestClock) and clock.frozen and clock.now == due, f"the clock stands at {due}: {clock}")

    refused = unfreeze_test_clock.sync_detailed(client=clock_api)
    expect(refused.status_code == 409, f"a clock ahead of the system time is not given back: {refused.status_code}")
    print(f"test mode: clock advanced to {due}, {advanced.renewals} renewal(s), next billing date {after.next_billing_date}")


if __name__ == "__main__":
    main(sys.argv[1])
