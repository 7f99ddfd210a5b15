// Compiled with `tsc --noEmit` by scripts/test.sh against the types that
// openapi-typescript generates from the committed documents (generated/*.ts,
// with --enum): if a schema, property or operation a client relies on changes
// shape, this stops compiling.
import type { components as Platform, operations as PlatformOps } from "./generated/platform-v4";
import type { components as Billing, operations as BillingOps } from "./generated/partner-billing-v1";
import { ActionType } from "./generated/partner-billing-v1";

type SecureFormInput = Platform["schemas"]["SecureFormInput"];
type SecureForm = Platform["schemas"]["SecureForm"];
type PlanRequest = Billing["schemas"]["PlanRequest"];
type SubscriptionOutput = Billing["schemas"]["SubscriptionOutput"];
type ChangeRequest = Billing["schemas"]["ChangeRequest"];
type Problem = Platform["schemas"]["Problem"];

const form: SecureFormInput = {
  name: "Card payment",
  color: "#1a73e8",
  greetingMessage: "Please enter your card",
  submitButtonText: "Pay",
  fields: [],
};

const plan: PlanRequest = { planId: 4, name: "Platform", billingPeriod: 3 };

const cancel: ChangeRequest = {
  ifCreateInvoice: true,
  isDraft: false,
  subscriptionChangeDtos: [{ actionType: ActionType.CancelSubscription, srcSubscriptionId: "0192f0c4-0000-7000-8000-000000140001" }],
};

// The spec's minimal change: a pricing model needs only its name (the plan's
// model of that name supplies the rest), and actions go by their names.
const addTeam: ChangeRequest = {
  ifCreateInvoice: false,
  isDraft: false,
  subscriptionChangeDtos: [{
    actionType: ActionType.AddSubscription,
    subscription: { planId: 1, name: "Team", isServicePlan: false, canBeCancelledByCustomer: true, subscriptionPricingModels: [{ name: "Agents" }] },
  }],
};

// The spec's POST sample for a billing configuration update, a deprecated alias of the PUT.
type ConfigUpdateByPost = NonNullable<BillingOps["updateSiteBillingConfigByPost"]["requestBody"]>["content"]["application/json"];
type ConfigUpdate = NonNullable<BillingOps["updateSiteBillingConfig"]["requestBody"]>["content"]["application/json"];
const sameBody = (body: ConfigUpdate): ConfigUpdateByPost => body;

function total(output: SubscriptionOutput): number {
  // Money is an exact JSON number; a client that wants exact sums parses the text.
  return Number(output.newAmount) + Number(output.newTax) + Number(output.srcAmount) + Number(output.srcTax);
}

function formName(created: PlatformOps["createSecureForm"]["responses"][201]["content"]["application/json"]): string {
  const full: SecureForm = created;
  return full.name;
}

function problemCode(problem: Problem): number {
  return problem.code;
}

type AddSubscriptionQuery = BillingOps["addSubscription"]["parameters"]["query"];
const query: AddSubscriptionQuery = { siteId: 10000, agentId: "0192f0c4-0000-7000-8000-000000010000" };

export { form, plan, cancel, addTeam, sameBody, total, formName, problemCode, query };
