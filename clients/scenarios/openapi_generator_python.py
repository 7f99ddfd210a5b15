"""The short scenario of every generated client, through openapi-generator's
Python clients (packages `platform_v4` and `partner_billing_v1`, generated
from the committed documents): a token; a secure form created, read, listed
and deleted; voicebots; the channel instances with `include=info`; with a
partner token, site 10000, its subscriptions, a `calculateNew` preview and
the product feature points. Exits non-zero on anything unexpected.

    PYTHONPATH=<generated packages> python openapi_generator_python.py http://127.0.0.1:8080
"""

import json
import sys
from decimal import Decimal

import partner_billing_v1 as billing
import platform_v4 as platform

base = sys.argv[1]


def expect(condition, what):
    if not condition:
        sys.exit(f"openapi-generator python: {what}")


# Platform: the spec's base_url ends in /v4; the token endpoint is under it too.
config = platform.Configuration(host=base + "/v4")
tokens = platform.AuthenticationApi(platform.ApiClient(config)).create_platform_token(
    grant_type="password", email="admin@site10000.example", password="demo-password")
config.access_token = tokens.access_token
client = platform.ApiClient(config)
forms = platform.SecureFormsApi(client)
created = forms.create_secure_form(platform.SecureFormInput.from_dict({
    "name": "Generated python", "greetingMessage": "<p>Hi</p>", "color": "#0a0", "submitButtonText": "Pay",
    "fields": [{"name": "card", "displayName": "Card", "type": "cardNumber", "order": 1, "isRequired": True}]}))
expect(forms.get_secure_form(created.id).name == "Generated python", "read the form back")
expect(any(f.id == created.id for f in forms.list_secure_forms(page_size=100).secure_forms), "the form is listed")
forms.delete_secure_form(created.id)
bots = platform.VoicebotsApi(client).list_voicebots()
expect(len(bots) >= 1, "the demo voicebot")
instances = platform.VoicebotChannelInstancesApi(client).list_voicebot_channel_instances(include="info")
expect(instances and instances[0].info is not None, "a channel instance with its info")

# Partner billing.
partner = billing.Configuration(host=base)
tokens = billing.AuthenticationApi(billing.ApiClient(partner)).create_partner_token(
    grant_type="password", email="admin@partner1.example", password="demo-password")
partner.access_token = tokens.access_token
client = billing.ApiClient(partner)
site = billing.SitesApi(client).get_site(10000)
expect(site.id == 10000, "site 10000")
subscriptions = billing.SubscriptionsApi(client).list_subscriptions(site_id=10000)
expect(len(subscriptions) >= 1, "site 10000's subscriptions")
preview = billing.SubscriptionOperationsApi(client).calculate_new_subscription(
    site_id=10000, agent_id="0192f0c4-0000-7000-8000-000000010000",
    plan_request=billing.PlanRequest(plan_id=4, name="Platform", billing_period=billing.BillingMonths.Monthly))
expect(isinstance(preview.new_amount, Decimal) and preview.new_amount > 0 and preview.subscription_id is None,
       f"a preview with Decimal amounts (mapNumberTo=Decimal): {preview}")
# Exact: the amounts equal the digits on the wire, read as decimals.
raw = billing.SubscriptionOperationsApi(client).calculate_new_subscription_without_preload_content(
    site_id=10000, agent_id="0192f0c4-0000-7000-8000-000000010000",
    plan_request=billing.PlanRequest(plan_id=4, name="Platform", billing_period=billing.BillingMonths.Monthly))
wire = json.loads(raw.data, parse_float=Decimal)
expect((preview.new_amount, preview.new_tax, preview.currency_id) == (wire["newAmount"], wire["newTax"], wire["currencyId"]),
       f"the amounts as sent: {wire}")
points = billing.FeaturePointsApi(client).list_product_feature_points()
expect(points is not None, "the product feature points")
print("    openapi-generator python: every step answered as expected")
