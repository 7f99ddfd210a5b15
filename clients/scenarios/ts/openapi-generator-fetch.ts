// The short scenario of every generated client, through openapi-generator's
// typescript-fetch clients of the committed documents (generated under
// ./generated/typescript-fetch/{platform,billing} by scripts/test.sh):
// a token; a secure form created, read, listed and deleted; voicebots; the
// channel instances with include=info; with a partner token, site 10000, its
// subscriptions, a calculateNew preview and the product feature points.
import * as platform from "./generated/typescript-fetch/platform/index";
import * as billing from "./generated/typescript-fetch/billing/index";

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`openapi-generator typescript-fetch: ${what}`);
}

async function main(base: string): Promise<void> {
  const signIn = new platform.AuthenticationApi(new platform.Configuration({ basePath: `${base}/v4` }));
  const tokens = await signIn.createPlatformToken({
    grantType: "password", email: "admin@site10000.example", password: "demo-password" });
  const config = new platform.Configuration({ basePath: `${base}/v4`, accessToken: tokens.accessToken });
  const forms = new platform.SecureFormsApi(config);
  const created = await forms.createSecureForm({ secureFormInput: {
    name: "Generated fetch", greetingMessage: "<p>Hi</p>", color: "#0a0", submitButtonText: "Pay",
    fields: [{ name: "card", displayName: "Card", type: platform.FieldType.CardNumber, order: 1, isRequired: true }] } });
  expect((await forms.getSecureForm({ id: created.id })).name === "Generated fetch", "read the form back");
  const page = await forms.listSecureForms({ pageSize: 100 });
  expect(page.secureForms.some((f) => f.id === created.id), "the form is listed");
  await forms.deleteSecureForm({ id: created.id });
  expect((await new platform.VoicebotsApi(config).listVoicebots()).length >= 1, "the demo voicebot");
  const instances = await new platform.VoicebotChannelInstancesApi(config).listVoicebotChannelInstances({ include: "info" });
  expect(instances.length >= 1 && instances[0].info !== undefined, "a channel instance with its info");

  const partnerTokens = await new billing.AuthenticationApi(new billing.Configuration({ basePath: base })).createPartnerToken({
    grantType: "password", email: "admin@partner1.example", password: "demo-password" });
  const partner = new billing.Configuration({ basePath: base, accessToken: partnerTokens.accessToken });
  expect((await new billing.SitesApi(partner).getSite({ id: 10000 })).id === 10000, "site 10000");
  expect((await new billing.SubscriptionsApi(partner).listSubscriptions({ siteId: 10000 })).length >= 1, "its subscriptions");
  const preview = await new billing.SubscriptionOperationsApi(partner).calculateNewSubscription({
    siteId: 10000, agentId: "0192f0c4-0000-7000-8000-000000010000",
    planRequest: { planId: 4, name: "Platform", billingPeriod: billing.BillingMonths.Monthly } });
  expect(preview.newAmount > 0 && preview.subscriptionId === undefined, "a preview");
  expect((await new billing.FeaturePointsApi(partner).listProductFeaturePoints()) !== undefined, "the product feature points");
  console.log("    openapi-generator typescript-fetch: every step answered as expected");
}

main(process.argv[2]).catch((err) => { console.error(err); process.exit(1); });
