// The short scenario of every generated client, through @hey-api/openapi-ts's
// clients of the committed documents (generated under
// ./generated/hey-api/{platform,billing} by scripts/test.sh). `throwOnError`
// makes a problem answer an exception; the bearer token goes in `auth`.
import * as platform from "./generated/hey-api/platform/index";
import * as billing from "./generated/hey-api/billing/index";
import { client as platformClient } from "./generated/hey-api/platform/client.gen";
import { client as billingClient } from "./generated/hey-api/billing/client.gen";

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`hey-api: ${what}`);
}

async function main(base: string): Promise<void> {
  platformClient.setConfig({ baseUrl: `${base}/v4`, throwOnError: true });
  const tokens = (await platform.createPlatformToken({
    body: { grant_type: "password", email: "admin@site10000.example", password: "demo-password" }, throwOnError: true })).data;
  platformClient.setConfig({ auth: tokens.access_token });
  const created = (await platform.createSecureForm({ body: {
    name: "Generated hey-api", greetingMessage: "<p>Hi</p>", color: "#0a0", submitButtonText: "Pay",
    fields: [{ name: "card", displayName: "Card", type: "cardNumber", order: 1, isRequired: true }] }, throwOnError: true })).data;
  expect((await platform.getSecureForm({ path: { id: created.id }, throwOnError: true })).data.name === "Generated hey-api", "read the form back");
  const page = (await platform.listSecureForms({ query: { pageSize: 100 }, throwOnError: true })).data;
  expect(page.secureForms.some((f) => f.id === created.id), "the form is listed");
  await platform.deleteSecureForm({ path: { id: created.id }, throwOnError: true });
  expect((await platform.listVoicebots({ throwOnError: true })).data.length >= 1, "the demo voicebot");
  const instances = (await platform.listVoicebotChannelInstances({ query: { include: "info" }, throwOnError: true })).data;
  expect(instances.length >= 1 && instances[0].info !== undefined, "a channel instance with its info");

  billingClient.setConfig({ baseUrl: base, throwOnError: true });
  const partner = (await billing.createPartnerToken({
    body: { grant_type: "password", email: "admin@partner1.example", password: "demo-password" }, throwOnError: true })).data;
  billingClient.setConfig({ auth: partner.access_token });
  expect((await billing.getSite({ path: { id: 10000 }, throwOnError: true })).data.id === 10000, "site 10000");
  expect((await billing.listSubscriptions({ query: { siteId: 10000 }, throwOnError: true })).data.length >= 1, "its subscriptions");
  const preview = (await billing.calculateNewSubscription({
    query: { siteId: 10000, agentId: "0192f0c4-0000-7000-8000-000000010000" },
    body: { planId: 4, name: "Platform", billingPeriod: 1 }, throwOnError: true })).data;
  expect(preview.newAmount > 0 && preview.subscriptionId === undefined, "a preview");
  expect((await billing.listProductFeaturePoints({ throwOnError: true })).data !== undefined, "the product feature points");
  console.log("    hey-api: every step answered as expected");
}

main(process.argv[2]).catch((err) => { console.error(err); process.exit(1); });
