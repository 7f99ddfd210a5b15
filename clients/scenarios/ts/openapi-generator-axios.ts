// The short scenario of every generated client, through openapi-generator's
// typescript-axios clients of the committed documents (generated under
// ./generated/typescript-axios/{platform,billing} by scripts/test.sh).
import * as platform from "./generated/typescript-axios/platform/index";
import * as billing from "./generated/typescript-axios/billing/index";

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`openapi-generator typescript-axios: ${what}`);
}

async function main(base: string): Promise<void> {
  const signIn = new platform.AuthenticationApi(new platform.Configuration({ basePath: `${base}/v4` }));
  const tokens = (await signIn.createPlatformToken("password", "admin@site10000.example", "demo-password")).data;
  const config = new platform.Configuration({ basePath: `${base}/v4`, accessToken: tokens.access_token });
  const forms = new platform.SecureFormsApi(config);
  const created = (await forms.createSecureForm({
    name: "Generated axios", greetingMessage: "<p>Hi</p>", color: "#0a0", submitButtonText: "Pay",
    fields: [{ name: "card", displayName: "Card", type: platform.FieldType.CardNumber, order: 1, isRequired: true }] })).data;
  expect((await forms.getSecureForm(created.id)).data.name === "Generated axios", "read the form back");
  expect((await forms.listSecureForms(1, 100)).data.secureForms.some((f) => f.id === created.id), "the form is listed");
  await forms.deleteSecureForm(created.id);
  expect((await new platform.VoicebotsApi(config).listVoicebots()).data.length >= 1, "the demo voicebot");
  const instances = (await new platform.VoicebotChannelInstancesApi(config)
    .listVoicebotChannelInstances(platform.ListVoicebotChannelInstancesIncludeEnum.Info)).data;
  expect(instances.length >= 1 && instances[0].info !== undefined, "a channel instance with its info");

  const partnerTokens = (await new billing.AuthenticationApi(new billing.Configuration({ basePath: base }))
    .createPartnerToken("password", "admin@partner1.example", "demo-password")).data;
  const partner = new billing.Configuration({ basePath: base, accessToken: partnerTokens.access_token });
  expect((await new billing.SitesApi(partner).getSite(10000)).data.id === 10000, "site 10000");
  expect((await new billing.SubscriptionsApi(partner).listSubscriptions(10000)).data.length >= 1, "its subscriptions");
  const preview = (await new billing.SubscriptionOperationsApi(partner).calculateNewSubscription(
    10000, "0192f0c4-0000-7000-8000-000000010000", { planId: 4, name: "Platform", billingPeriod: billing.BillingMonths.Monthly })).data;
  expect(preview.newAmount > 0 && preview.subscriptionId === undefined, "a preview");
  expect((await new billing.FeaturePointsApi(partner).listProductFeaturePoints()).data !== undefined, "the product feature points");
  console.log("    openapi-generator typescript-axios: every step answered as expected");
}

main(process.argv[2]).catch((err) => { console.error(err); process.exit(1); });
