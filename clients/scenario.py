"""A client's day, using only the Python clients that openapi-python-client
generates from the committed documents (scripts/test.sh runs it against a live
server with the demo data): tokens; a secure form created, read, updated,
listed and deleted; a voicebot with its SIP configuration likewise; a site
read; a billing configuration updated through the spec's POST sample (the
deprecated alias of the PUT); a subscription added the spec's minimal way
(`ActionType.ADD_SUBSCRIPTION`, a pricing model named only) and a change
previewed and applied. The platform client is given the spec's `base_url`
(ending in /v4). Any unexpected answer ends it with a non-zero exit."""

import sys

from billing_client import AuthenticatedClient as BillingClient
from billing_client import Client as BillingPublic
from billing_client.api.authentication import create_partner_token
from billing_client.api.site_billing_configs import get_site_billing_config, update_site_billing_config_by_post
from billing_client.api.sites import get_site
from billing_client.api.subscription_operations import calculate_subscription_changes, change_subscriptions
from billing_client.models import (
    ActionType,
    ChangeRequest,
    Site,
    SiteBillingConfig,
    SiteBillingConfigInput,
    SubscriptionChangeDto,
    SubscriptionDto,
    SubscriptionPricingModelDto,
    SubscriptionsChangeOutput,
)
from billing_client.models import TokenRequestForm as PartnerPassword
from billing_client.models import TokenResponse as PartnerTokens
from platform_client import AuthenticatedClient, Client
from platform_client.api.authentication import create_platform_token
from platform_client.api.secure_forms import (
    create_secure_form,
    delete_secure_form,
    get_secure_form,
    list_secure_forms,
    update_secure_form,
)
from platform_client.api.sip_configurations import create_sip_configuration, delete_sip_configuration, get_sip_configuration
from platform_client.api.voicebots import create_voicebot, delete_voicebot, get_voicebot, list_voicebots, update_voicebot
from platform_client.models import (
    SecureForm,
    SecureFormInput,
    SecureFormPage,
    SipConfiguration,
    SipConfigurationInput,
    TokenRequestForm,
    TokenResponse,
    Voicebot,
    VoicebotInput,
)

ZERO = "00000000-0000-0000-0000-000000000000"


def expect(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"scenario failed: {what}")
    print(f"ok  {what}")


def main(server: str) -> None:
    # The spec's base URLs: interfaces A and B under `v4`, partner billing at the root.
    base_url, partner_base_url = f"{server}/v4", server
    # Tokens (the platform's token endpoint is answered under the base URL too).
    tokens = create_platform_token.sync(
        client=Client(base_url=base_url),
        body=TokenRequestForm.from_dict({"grant_type": "password", "email": "admin@site10000.example", "password": "demo-password"}),
    )
    expect(isinstance(tokens, TokenResponse), "platform token")
    platform = AuthenticatedClient(base_url=base_url, token=tokens.access_token)
    partner_tokens = create_partner_token.sync(
        client=BillingPublic(base_url=partner_base_url),
        body=PartnerPassword.from_dict({"grant_type": "password", "email": "admin@partner1.example", "password": "demo-password"}),
    )
    expect(isinstance(partner_tokens, PartnerTokens), "partner token")
    billing = BillingClient(base_url=partner_base_url, token=partner_tokens.access_token)

    # A secure form, end to end.
    form_input = {
        "name": "SDK payment form",
        "color": "#1a73e8",
        "greetingMessage": "Please enter your card",
        "submitButtonText": "Pay",
        "fields": [{"name": "Card number", "type": "cardNumber", "order": 1, "isRequired": True}],
    }
    form = create_secure_form.sync(client=platform, body=SecureFormInput.from_dict(form_input))
    expect(isinstance(form, SecureForm) and form.name == "SDK payment form", "create a secure form")
    read = get_secure_form.sync(id=form.id, client=platform)
    expect(isinstance(read, SecureForm) and read.fields[0].name == "Card number", "read it")
    updated = update_secure_form.sync(id=form.id, client=platform, body=SecureFormInput.from_dict({**form_input, "name": "SDK form v2"}))
    expect(isinstance(updated, SecureForm) and updated.name == "SDK form v2", "update it")
    page = list_secure_forms.sync(client=platform, page_size=100)
    expect(isinstance(page, SecureFormPage) and any(f.id == form.id for f in page.secure_forms), "list it")
    deleted = delete_secure_form.sync_detailed(id=form.id, client=platform)
    expect(deleted.status_code == 204, "delete it")
    expect(get_secure_form.sync_detailed(id=form.id, client=platform).status_code == 404, "it is gone")

    # A voicebot with its SIP configuration.
    sip = create_sip_configuration.sync(
        client=platform,
        body=SipConfigurationInput.from_dict({"username": "sdk-trunk", "password": "s3cret", "sIPServer": "sip.example.com"}),
    )
    expect(isinstance(sip, SipConfiguration) and sip.password == "s3cret", "create a SIP configuration")
    expect(isinstance(get_sip_configuration.sync(id=sip.id, client=platform), SipConfiguration), "read it")
    bot_input = {
        "name": "SDK bot",
        "engineId": "0192f0c4-0000-7000-8000-0000000a1001",
        "languageId": "zh-CN",
        "voiceNameId": "zh-CN-male-1",
        "channel": {"voiceChannelId": "0192f0c4-0000-7000-8000-0000000c0001", "infoId": str(sip.id), "channelType": "sip"},
    }
    bot = create_voicebot.sync(client=platform, body=VoicebotInput.from_dict(bot_input))
    expect(isinstance(bot, Voicebot) and bot.name == "SDK bot", "create a voicebot on it")
    expect(isinstance(get_voicebot.sync(id=bot.id, client=platform), Voicebot), "read the voicebot")
    renamed = update_voicebot.sync(id=bot.id, client=platform, body=VoicebotInput.from_dict({**bot_input, "name": "SDK bot v2"}))
    expect(isinstance(renamed, Voicebot) and renamed.name == "SDK bot v2", "update it")
    bots = list_voicebots.sync(client=platform)
    expect(isinstance(bots, list) and any(b.id == bot.id for b in bots), "list voicebots")
    expect(delete_voicebot.sync_detailed(id=bot.id, client=platform).status_code == 204, "delete the voicebot")
    expect(delete_sip_configuration.sync_detailed(id=sip.id, client=platform).status_code == 204, "delete the SIP configuration")

    # Partner billing: a site, and a subscription change previewed then applied.
    site = get_site.sync(id=10000, client=billing)
    expect(isinstance(site, Site) and site.id == 10000, "read a site")

    config = get_site_billing_config.sync(site_id=10001, client=billing)
    expect(isinstance(config, SiteBillingConfig), "read a billing configuration")
    update = SiteBillingConfigInput.from_dict(
        {"billingPeriod": config.billing_period, "currencyId": config.currency_id, "paymentTermValue": config.payment_term_value,
         "isPricingVisible": not config.is_pricing_visible}
    )
    updated = update_site_billing_config_by_post.sync(site_id=10001, client=billing, body=update)
    expect(isinstance(updated, SiteBillingConfig) and updated.is_pricing_visible != config.is_pricing_visible,
           "update it with the spec's POST (deprecated alias of the PUT)")

    team = SubscriptionDto(plan_id=1, name="Team", is_service_plan=False, can_be_cancelled_by_customer=True,
                           subscription_pricing_models=[SubscriptionPricingModelDto(name="Agents")])
    minimal = ChangeRequest(if_create_invoice=True, is_draft=False,
                            subscription_change_dtos=[SubscriptionChangeDto(action_type=ActionType.ADD_SUBSCRIPTION, subscription=team)])
    added = calculate_subscription_changes.sync(client=billing, body=minimal, site_id=10000)
    expect(isinstance(added, SubscriptionsChangeOutput) and added.amount > 0,
           "preview adding Team the spec's minimal way (ActionType.ADD_SUBSCRIPTION, a pricing model by name)")

    request = ChangeRequest.from_dict({"ifCreateInvoice": True, "isDraft": False, "purchasedAgents": 6})
    preview = calculate_subscription_changes.sync(client=billing, body=request, site_id=10000)
    expect(isinstance(preview, SubscriptionsChangeOutput) and str(preview.invoice_id) == ZERO, "preview a change")
    applied = change_subscriptions.sync(client=billing, body=request, site_id=10000, idempotency_key="sdk-scenario")
    expect(isinstance(applied, SubscriptionsChangeOutput) and str(applied.invoice_id) != ZERO, "apply it")
    expect((applied.amount, applied.tax) == (preview.amount, preview.tax), "the preview's figures are the apply's")


if __name__ == "__main__":
    main(sys.argv[1])
