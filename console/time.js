// Time: the tenant's clock, advanced by a day, a month, a site's billing
// period or to a date, with the renewals each advance ran; or given back.
import { call, session } from "./api.js";
import { fill, h, when } from "./dom.js";

const PERIOD_MONTHS = { monthly: 1, quarterly: 3, "semi-annual": 6, annual: 12 };

/** Advances made from this tab with one token (the server keeps the clock,
 * not its history): another token, after a sign-out, starts with none. */
let history = [];
let historyOf = null;

export function show(container, context) {
  if (historyOf !== session.token) {
    history = [];
    historyOf = session.token;
  }
  let clock = null;
  const status = h("p", { id: "clock-now", "aria-live": "polite" });
  const periodSelect = h("select", { id: "period-site" });
  // ISO 8601 in UTC, as every date the API and the console write (a browser's date picker shows its locale's).
  const dateInput = h("input", { id: "advance-to", type: "text", required: true, size: 22, spellcheck: "false",
    pattern: "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2})?Z?", placeholder: "2027-01-01T00:00:00Z" });
  const log = h("ol", { id: "advances", class: "plain" });

  fill(container,
    h("h2", {}, "Time"),
    status,
    h("div", { class: "actions" },
      h("button", { type: "button", onclick: () => advance((now) => addDays(now, 1)) }, "Advance a day"),
      h("button", { type: "button", onclick: () => advance((now) => addMonths(now, 1)) }, "Advance a month"),
      h("button", { type: "button", onclick: () => advance((now) => addMonths(now, PERIOD_MONTHS[chosen()?.billingPeriod] || 1)) },
        "Advance a billing period of"),
      h("label", { for: "period-site", class: "visually-hidden" }, "Site whose billing period or date to advance by"),
      periodSelect,
      h("button", { type: "button", onclick: () => advance(() => new Date(chosen()?.nextBillingDate)) }, "Advance to its next billing date")),
    h("form", { class: "actions", onsubmit: (event) => { event.preventDefault(); advance(() => new Date(dateInput.value.trim().replace(/Z?$/, "Z"))); } },
      h("label", { for: "advance-to" }, "Advance to (UTC)"), dateInput,
      h("button", { type: "submit" }, "Advance")),
    h("div", { class: "actions" },
      h("button", { type: "button", id: "unfreeze", onclick: giveBack }, "Give the clock back (run with the system clock)")),
    h("h3", {}, "Advances from this tab"),
    log);

  async function load() {
    try {
      clock = await call("GET", "/api/test/clock");
      fill(status, `Now ${when(clock.now)}: `, clock.frozen ? "frozen (moves only when advanced)" : "running with the system clock");
      dateInput.value = `${clock.now.slice(0, 19)}Z`;
    } catch (error) {
      context.report(error);
    }
  }

  let configs = [];
  const chosen = () => configs.find((config) => String(config.siteId) === periodSelect.value);

  async function loadPeriods() {
    try {
      configs = await call("GET", "/api/billing/siteBillingConfigs");
      const keep = periodSelect.value;
      fill(periodSelect, configs.map((config) => h("option", { value: config.siteId },
        `site ${config.siteId}: ${config.billingPeriod}, next ${when(config.nextBillingDate).slice(0, 10)}`)));
      if (keep) periodSelect.value = keep;
    } catch {
      configs = [];
      fill(periodSelect, h("option", { value: "" }, "no site's configuration readable (a month)"));
    }
  }

  async function advance(target) {
    // A click before the screen's first read of the clock answered waits for it
    // (it was ignored: CI's console test clicked that early once).
    if (!clock) await load();
    if (!clock) return;
    const to = target(new Date(clock.now));
    if (Number.isNaN(to.getTime())) {
      context.report("the date to advance to is not a date");
      return;
    }
    await context.attempt(async () => {
      const from = clock.now;
      const answer = await call("POST", "/api/test/clock:advance", { json: { to: to.toISOString().replace(".000Z", "Z") } });
      history.unshift({ from, to: answer.now, renewals: answer.renewals });
      // The advance shows once the clock and the sites' dates are read again:
      // a click on a date the screen still showed from before (a site's next
      // billing date, now behind the clock) was an advance into the past
      // (CI's console test clicked that early once).
      await Promise.all([load(), loadPeriods()]);
      renderLog();
    });
  }

  function giveBack() {
    return context.attempt(async () => {
      await call("DELETE", "/api/test/clock");
      history.unshift({ givenBack: true });
      renderLog();
      await load();
    });
  }

  function renderLog() {
    fill(log, history.map((step) => h("li", {}, step.givenBack
      ? "the clock given back to the system clock"
      : `${when(step.from)} → ${when(step.to)}: ${step.renewals} renewal invoice${step.renewals === 1 ? "" : "s"}`)));
  }

  renderLog();
  load();
  loadPeriods();
}

function addDays(date, days) {
  return new Date(date.getTime() + days * 86400000);
}

/** Calendar months, the day kept or clamped to the month's last (31 January + 1 month = 28 or 29 February). */
function addMonths(date, months) {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const last = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, last));
  return result;
}
