// The short scenario of every generated client, through orval's axios
// clients of the committed documents (generated under ./generated/orval by
// scripts/test.sh with orval.config.cjs). Each call takes the server and the
// token in its axios options.
import * as platform from "./generated/orval/platform";
import * as billing from "./generated/orval/billing";

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`orval: ${what}`);
}

async function main(base: string): Promise<void> {
  const root = { baseURL: `${base}/v4` };
  const tokens = (await platform.createPlatformToken(
    { grant_type: "password", email: "admin@site10000.example", password: "demo-password" }, root)).data;
  const as = { ...root, headers: { Authorization: `Bearer ${tokens.access_token}` } };
  const created = (await platform.createSecureForm({
    name: "Generated orval", greetingMessage: "<p>Hi</p>", color: "#0a0", submitButtonText: "Pay",
    fields: [{ name: "card", displayName: "Card", type: "cardNumber", order: 1, isRequired: true }] }, as)).data;
  expect((await platform.getSecureForm(created.id, as)).data.name === "Generated orval", "read the form back");
  expect((await platform.listSecureForms({ pageSize: 100 }, as)).data.secureForms.some((f) => f.id === created.id), "the form is listed");
  await platform.deleteSecureForm(created.id, as);
  expect((await platform.listVoicebots(undefined, as)).data.length >= 1, "the demo voicebot");
  const instances = (await platform.listVoicebotChannelInstances({ include: "info" }, as)).data;
  expect(instances.length >= 1 && instances[0].info !== undefined, "a channel instance with its info");

  const partnerRoot = { baseURL: base };
  const partner = (await billing.createPartnerToken(
    { grant_type: "password", email: "admin@partner1.example", password: "demo-password" }, partnerRoot)).data;
  const pas = { ...partnerRoot, headers: { Authorization: `Bearer ${partner.access_token}` } };
  expect((await billing.getSite(10000, pas)).data.id === 10000, "site 10000");
  expect((await billing.listSubscriptions({ siteId: 10000 }, pas)).data.length >= 1, "its subscriptions");
  const preview = (await billing.calculateNewSubscription({ planId: 4, name: "Platform", billingPeriod: 1 },
    { siteId: 10000, agentId: "0192f0c4-0000-7000-8000-000000010000" }, pas)).data;
  expect(preview.newAmount > 0 && preview.subscriptionId === undefined, "a preview");
  expect((await billing.listProductFeaturePoints(pas)).data !== undefined, "the product feature points");
  console.log("    orval: every step answered as expected");
}

main(process.argv[2]).catch((err) => { console.error(err?.response?.data ?? err); process.exit(1); });
