// The short scenario of every generated client, through openapi-typescript's
// types of the committed documents (generated under
// ./generated/openapi-typescript by clients/generated-clients.sh) with
// openapi-fetch, the runtime made for them: every path, parameter and body
// below is checked against the documents by tsc.
import createClient from "openapi-fetch";
import type { paths as PlatformPaths } from "./generated/openapi-typescript/platform";
import type { paths as BillingPaths } from "./generated/openapi-typescript/billing";
// With --enum, openapi-typescript writes the documents' enums as TypeScript enums.
import {
  FieldType,
  PathsVoicebotVoicebotChannelInstancesGetParametersQueryInclude as Include,
  TokenRequestFormGrant_type as GrantType,
} from "./generated/openapi-typescript/platform";
import { TokenRequestFormGrant_type as PartnerGrantType } from "./generated/openapi-typescript/billing";

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`openapi-typescript + openapi-fetch: ${what}`);
}

const form = (body: Record<string, unknown>) => new URLSearchParams(body as Record<string, string>).toString();
const formHeaders = { "Content-Type": "application/x-www-form-urlencoded" };

async function main(base: string): Promise<void> {
  const platform = createClient<PlatformPaths>({ baseUrl: `${base}/v4` });
  const signIn = await platform.POST("/oauth/token", {
    body: { grant_type: GrantType.password, email: "admin@site10000.example", password: "demo-password" },
    bodySerializer: form, headers: formHeaders });
  expect(signIn.data !== undefined, "a platform token");
  const headers = { Authorization: `Bearer ${signIn.data!.access_token}` };
  const created = await platform.POST("/secureform/secureForms", { headers, body: {
    name: "Generated openapi-fetch", greetingMessage: "<p>Hi</p>", color: "#0a0", submitButtonText: "Pay",
    fields: [{ name: "card", displayName: "Card", type: FieldType.cardNumber, order: 1, isRequired: true }] } });
  expect(created.data !== undefined, "create a form");
  const id = created.data!.id;
  const read = await platform.GET("/secureform/secureForms/{id}", { headers, params: { path: { id } } });
  expect(read.data?.name === "Generated openapi-fetch", "read the form back");
  const page = await platform.GET("/secureform/secureForms", { headers, params: { query: { pageSize: 100 } } });
  expect(page.data?.secureForms.some((f) => f.id === id) === true, "the form is listed");
  expect((await platform.DELETE("/secureform/secureForms/{id}", { headers, params: { path: { id } } })).response.status === 204, "delete the form");
  expect(((await platform.GET("/voicebot/voicebots", { headers })).data?.length ?? 0) >= 1, "the demo voicebot");
  const instances = await platform.GET("/voicebot/voicebotChannelInstances", { headers, params: { query: { include: Include.info } } });
  expect(instances.data?.[0]?.info !== undefined, "a channel instance with its info");

  const billing = createClient<BillingPaths>({ baseUrl: base });
  const partnerSignIn = await billing.POST("/api/oauth/token", {
    body: { grant_type: PartnerGrantType.password, email: "admin@partner1.example", password: "demo-password" },
    bodySerializer: form, headers: formHeaders });
  expect(partnerSignIn.data !== undefined, "a partner token");
  const partner = { Authorization: `Bearer ${partnerSignIn.data!.access_token}` };
  expect((await billing.GET("/api/billing/sites/{id}", { headers: partner, params: { path: { id: 10000 } } })).data?.id === 10000, "site 10000");
  const subscriptions = await billing.GET("/api/billing/subscriptions", { headers: partner, params: { query: { siteId: 10000 } } });
  expect((subscriptions.data?.length ?? 0) >= 1, "its subscriptions");
  const preview = await billing.POST("/api/billing/subscriptions:calculateNew", { headers: partner,
    params: { query: { siteId: 10000, agentId: "0192f0c4-0000-7000-8000-000000010000" } },
    body: { planId: 4, name: "Platform", billingPeriod: 1 } });
  expect((preview.data?.newAmount ?? 0) > 0 && preview.data?.subscriptionId === undefined, "a preview");
  expect((await billing.GET("/api/global/productFeaturePoint", { headers: partner })).data !== undefined, "the product feature points");
  console.log("    openapi-typescript + openapi-fetch: every step answered as expected");
}

main(process.argv[2]).catch((err) => { console.error(err); process.exit(1); });
