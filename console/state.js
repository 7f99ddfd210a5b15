// State: a read-only look at what the tests left — the partner's sites with
// their billing configuration, subscriptions with their line items, and the
// invoices those lines make up; the sandbox's download as a data set, reset and delete.
import { call, session, sum } from "./api.js";
import { fill, h, table, when } from "./dom.js";

export function show(container, context) {
  const sandboxPart = h("div", { id: "sandbox" });
  const sitesPart = h("div", { id: "sites" });
  fill(container, h("h2", {}, "State"),
    h("div", { class: "actions" }, h("button", { type: "button", onclick: load }, "Read again")),
    sandboxPart, sitesPart);

  async function load() {
    if (!session.claims.partnerId) {
      fill(sitesPart, h("p", {}, "The billing state is a partner's: sign in with a partner token to see it."));
      return;
    }
    let sites = null;
    try {
      // One read: a site embeds its billing configuration and subscriptions, line items included.
      sites = await call("GET", "/api/billing/sites");
    } catch (error) {
      context.report(error);
    }
    // The sandbox part is drawn before the sites, never after them: once the
    // sites show the new state, its buttons (delete's confirmation among them)
    // are the ones that stay, not replaced under a click.
    await loadSandbox();
    if (sites) {
      fill(sitesPart, sites.length === 0 ? h("p", { class: "muted" }, "The partner has no site.")
        : sites.map((site) => siteSection(site, site.subscriptions || [])));
      context.clear();
    }
  }

  async function loadSandbox() {
    const partnerId = session.claims.partnerId;
    if (!partnerId) return fill(sandboxPart);
    try {
      const sandbox = await call("GET", `/api/test/sandboxes/${encodeURIComponent(partnerId)}`);
      const confirm = h("button", { type: "button", class: "danger", hidden: true, onclick: remove }, "Yes, delete the sandbox and everything in it");
      fill(sandboxPart, h("h3", {}, "Sandbox"),
        h("p", {}, `Partner ${sandbox.partnerId}, ${sandbox.dataSet} data, created ${when(sandbox.createdTime)}`,
          sandbox.expiresAt ? `, deleted unless used by ${when(sandbox.expiresAt)}` : ""),
        credentials(sandbox.partnerId),
        h("div", { class: "actions" },
          h("button", { type: "button", onclick: download }, "Download as data set"),
          h("button", { type: "button", onclick: reset }, "Reset to how it was created"),
          h("button", { type: "button", onclick: () => { confirm.hidden = false; confirm.focus(); } }, "Delete the sandbox…"),
          confirm));
    } catch {
      // Not a sandbox (the demo partner, say): nothing to reset or delete.
      fill(sandboxPart);
    }
  }

  /** The sandbox as it is now, as a data set file: what "New sandbox from a data set file" takes. */
  function download() {
    return context.attempt(async () => {
      const partnerId = session.claims.partnerId;
      const dataSet = await call("GET", `/api/test/sandboxes/${encodeURIComponent(partnerId)}/data-set`);
      const url = URL.createObjectURL(new Blob([JSON.stringify(dataSet, null, 2)], { type: "application/json" }));
      // Not through h(): its links stay on this origin's paths, and a blob: URL is none.
      const link = document.createElement("a");
      link.href = url;
      link.download = `sandbox-${partnerId}.json`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    });
  }

  function reset() {
    return context.attempt(async () => {
      const sandbox = await call("POST", `/api/test/sandboxes/${encodeURIComponent(session.claims.partnerId)}:reset`);
      if (sandbox?.partner?.accessToken) session.token = sandbox.partner.accessToken;
      await load();
    });
  }

  function remove() {
    return context.attempt(async () => {
      await call("DELETE", `/api/test/sandboxes/${encodeURIComponent(session.claims.partnerId)}`);
      if (session.sandbox?.partnerId === session.claims.partnerId) session.sandbox = null;
      context.signOut();
    });
  }

  load();
}

/** How your own curl or suite acts as this sandbox's partner: shown for the sandbox this tab made. */
function credentials(partnerId) {
  const sandbox = session.sandbox;
  if (sandbox?.partnerId !== partnerId) return null;
  const field = (label, value) => [h("dt", {}, label), h("dd", {}, h("code", {}, value))];
  return h("details", { id: "credentials" }, h("summary", {}, "Sign in as it from your own client"),
    h("dl", { class: "facts" },
      field("Email", sandbox.email),
      field("Password", sandbox.password),
      field("Access token", session.token)),
    h("p", { class: "muted" }, "Or POST these to /api/oauth/token (grant_type=password) for a fresh token; every account of the sandbox has this password."));
}

/** A subscription's plan by its catalog name, with its id (what requests name it by). */
function planOf(subscription) {
  return subscription.planName ? `${subscription.planName} (plan ${subscription.planId})` : `plan ${subscription.planId}`;
}

function siteSection(site, subscriptions) {
  const config = site.siteBillingConfig || {};
  const lines = subscriptions.flatMap((subscription) => (subscription.lineItems || []).map((line) => ({ ...line, subscription: subscription.name, plan: planOf(subscription) })));
  const invoices = new Map();
  for (const line of lines) {
    if (!invoices.has(line.invoiceId)) invoices.set(line.invoiceId, []);
    invoices.get(line.invoiceId).push(line);
  }
  // Newest first: an invoice is dated by the service its lines start (the API answers lines, not invoices).
  const dated = [...invoices].map(([invoiceId, items]) => ({ invoiceId, items, from: items.map((line) => line.serviceStartDate).sort()[0] || "" }))
    .sort((a, b) => (a.from < b.from ? 1 : a.from > b.from ? -1 : 0));
  const currency = config.currency ? `${config.currency.id} (${config.currency.symbol})` : config.currencyId ?? "";
  return h("section", { class: "site", "aria-label": `Site ${site.id}` },
    h("h3", {}, `Site ${site.id}`, site.company ? ` — ${site.company}` : ""),
    h("dl", { class: "facts" },
      h("dt", {}, "Billing period"), h("dd", {}, config.billingPeriod ?? "(no configuration)"),
      h("dt", {}, "Next billing date"), h("dd", { class: "next-billing-date" }, when(config.nextBillingDate)),
      h("dt", {}, "Balance"), h("dd", { class: "money" }, config.balance ?? ""),
      h("dt", {}, "Currency"), h("dd", {}, currency)),
    h("h4", {}, "Subscriptions"),
    subscriptions.length === 0 ? h("p", { class: "muted" }, "None.") : table(`Subscriptions of site ${site.id}`, [
      { label: "Name", cell: (s) => s.name },
      { label: "Plan", cell: (s) => `${planOf(s)}${s.isServicePlan ? " (service)" : ""}` },
      { label: "Created", cell: (s) => when(s.createdTime) },
      { label: "Line items", cell: (s) => (s.lineItems || []).length, class: "number" },
    ], subscriptions),
    h("h4", {}, "Invoices, newest first"),
    invoices.size === 0 ? h("p", { class: "muted" }, "None.") : dated.map(({ invoiceId, items, from }) => invoice(invoiceId, items, from)));
}

/** What the lines say of their invoice: a credit, paid (every line's paidAmount is its total), or still open. */
function status(items, total) {
  if (total.startsWith("-")) return "credit";
  return items.every((line) => sum([line.paidAmount]) === sum([line.lineTotal])) ? "paid" : "open (unpaid or draft)";
}

function invoice(invoiceId, items, from) {
  const total = (field) => sum(items.map((line) => line[field]));
  return h("div", { class: "invoice" },
    table(`Invoice ${invoiceId}, service from ${when(from).slice(0, 10)}, ${status(items, total("lineTotal"))}`, [
      { label: "Subscription", cell: (line) => line.subscription },
      { label: "Plan", cell: (line) => line.plan },
      { label: "Line", cell: (line) => line.name },
      { label: "Kind", cell: (line) => line.type ?? "" },
      { label: "Service", cell: (line) => `${when(line.serviceStartDate).slice(0, 10)} → ${when(line.serviceEndDate).slice(0, 10)}` },
      { label: "Quantity", cell: (line) => line.quantity ?? "", class: "number" },
      { label: "Unit price", cell: (line) => line.unitPrice ?? "", class: "money" },
      { label: "Discount", cell: (line) => line.discount ?? "", class: "money" },
      { label: "Amount", cell: (line) => line.amount ?? "", class: "money" },
      { label: "Tax", cell: (line) => line.tax ?? "", class: "money" },
      { label: "Total", cell: (line) => line.lineTotal ?? "", class: "money" },
    ], items),
    h("p", { class: "totals" }, `Totals: amount ${total("amount")}, tax ${total("tax")}, total ${total("lineTotal")}`));
}
