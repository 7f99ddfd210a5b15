// The test console (/console) in a real browser (scripts/test.sh): Debian's
// Chromium driven by playwright-core does what a developer debugging a failed
// suite would, and checks every screen with axe-core and the keyboard.
//
//   node console.mjs <base-url> <output-dir>
//
// Fails on any dialog or page error, on any console message while hostile
// bodies are shown, and on any Content-Security-Policy report. Saves a
// screenshot per screen in <output-dir> and prints the time the journal
// screen took to show 1,000 entries (a figure, not a check: docs/performance.md).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { launchChromium } from "./chromium.mjs";

const [base, outputDir] = process.argv.slice(2);
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
page.setDefaultTimeout(15000);

let hostile = false;
const failures = [];
page.on("dialog", (dialog) => { failures.push(`a dialog opened: ${dialog.message()}`); dialog.dismiss().catch(() => {}); });
page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
page.on("console", (message) => {
  const text = message.text();
  // A refused request logs "Failed to load resource" in Chromium: expected where the test provokes one.
  if (hostile || /Content Security Policy/i.test(text) || (message.type() === "error" && !/Failed to load resource/.test(text))) {
    failures.push(`console ${message.type()}: ${text}`);
  }
});

function ok(what) { console.log(`ok  ${what}`); }
function check(condition, what) { if (!condition) throw new Error(`failed: ${what}`); }
function checkFailures() { if (failures.length) throw new Error(failures.join("\n")); }

/** An API call from outside the page, as the integrator's suite would make it. */
async function api(method, path, token, { json, headers = {} } = {}) {
  const answer = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(json ? { "Content-Type": "application/json" } : {}), ...headers },
    body: json ? JSON.stringify(json) : undefined,
  });
  const text = await answer.text();
  return { status: answer.status, body: text ? JSON.parse(text) : null };
}

async function screen(name) {
  await page.goto(`${base}/console#${name}`);
  await page.locator(`#screen[data-screen="${name}"]`).waitFor();
}

/** axe-core's serious and critical violations of the page as it is. */
async function accessible(what) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join("; ")}`));
  check(violations.length === 0, `axe on ${what}: ${violations.join("\n")}`);
}

/** Tab through the page: every visible control is reached. */
async function keyboard(what) {
  const total = await page.evaluate(() => {
    const controls = [...document.querySelectorAll("a[href], button, input, select, textarea")]
      .filter((el) => !el.disabled && el.offsetParent !== null);
    controls.forEach((el, index) => { el.dataset.kb = String(index); });
    document.activeElement?.blur();
    return controls.length;
  });
  const reached = new Set();
  for (let press = 0; press < total * 2 + 5 && reached.size < total; press++) {
    await page.keyboard.press("Tab");
    const id = await page.evaluate(() => document.activeElement?.dataset.kb);
    if (id !== undefined) reached.add(id);
  }
  check(reached.size === total, `keyboard on ${what}: ${reached.size} of ${total} controls reached by Tab`);
}

async function screenshot(name) {
  await page.screenshot({ path: `${outputDir}/console-${name}.png`, fullPage: true });
}

async function checkScreen(name) {
  await accessible(name);
  await keyboard(name);
  await screenshot(name);
  ok(`${name}: no serious axe violation, every control reached by keyboard, screenshot`);
}

// Sign-in: headers, a wrong token refused with the server's message.
const head = await fetch(`${base}/console`);
const policy = head.headers.get("content-security-policy") || "";
check(head.status === 200 && policy.includes("frame-ancestors 'none'") && !policy.includes("unsafe-inline") && head.headers.get("cache-control") === "no-store",
  `/console headers: ${head.status} ${policy}`);
await page.goto(`${base}/console`);
await page.locator("#sign-in").waitFor();
await checkScreen("sign-in");
await page.locator("#token").fill("not-a-token");
await page.getByRole("button", { name: "Use this token" }).click();
await page.locator("#problem").waitFor();
check(await page.locator("#sign-in").isVisible(), "a wrong token leaves the sign-in screen");
ok(`a wrong token: "${(await page.locator("#problem").innerText()).slice(0, 80)}"`);

// A partner's email and password (the demo partner's): signed in, then out.
await page.locator("#email").fill("admin@partner1.example");
await page.locator("#password").fill("wrong-password");
await page.getByRole("button", { name: "Sign in" }).click();
await page.locator("#problem").waitFor();
check(await page.locator("#sign-in").isVisible(), "a wrong password leaves the sign-in screen");
await page.locator("#password").fill("demo-password");
await page.getByRole("button", { name: "Sign in" }).click();
await page.locator("#who-text", { hasText: "partner 1" }).waitFor();
check(await page.locator("#password").inputValue() === "", "the password is not kept in the form");
await page.getByRole("button", { name: "Sign out" }).click();
await page.locator("#sign-in").waitFor();
check(await page.evaluate(() => sessionStorage.length === 0), "signing out forgets the token");
ok("signed in with the demo partner's email and password (a wrong one shows the server's problem), then out");

// A demo sandbox, signed in as its partner.
await page.getByRole("button", { name: "Create a demo sandbox" }).click();
await page.locator('#screen[data-screen="requests"]').waitFor();
let token = await page.evaluate(() => sessionStorage.getItem("switchboard.console.token"));
const partnerId = JSON.parse(Buffer.from(token.split(".")[1], "base64url")).partnerId;
check(await page.evaluate(() => document.cookie === ""), "no cookie");
ok(`created a demo sandbox and signed in as partner ${partnerId}`);

// A few requests of the suite, one refused with 400, in the journal within a second.
const sites = (await api("GET", "/api/billing/sites", token)).body;
const siteId = sites[0].id;
check((await api("GET", `/api/billing/siteBillingConfigs/${siteId}`, token)).status === 200, "a config read");
const refused = await api("POST", `/api/billing/subscriptions:calculateNew?siteId=${siteId}`, token, { json: { planId: "not a number" } });
check(refused.status === 400, `the refused request: ${refused.status}`);
const sent = Date.now();
await page.locator("#journal tbody tr", { hasText: "calculateNew" }).first().waitFor();
const seen = Date.now() - sent;
check(seen <= 1000, `the journal showed the requests ${seen} ms after they were sent`);
check(await page.locator("#journal tbody tr").count() === 3, "the console's own reads are not in the journal");
ok(`the requests in the journal ${seen} ms after they were sent (the newest entry polled every 400 ms), the console's own reads not among them`);
await page.locator("#journal tbody tr", { hasText: "calculateNew" }).getByRole("button").click();
await page.locator("#request-detail h3").waitFor();
const detail = await page.locator("#request-detail").innerText();
check(detail.includes("400") && detail.includes("not a number"), "the entry's detail");
await page.getByRole("button", { name: "Copy as curl" }).click();
const curl = await page.locator("#curl").innerText();
check(curl.includes("$SWITCHBOARD_TOKEN") && !curl.includes(token) && curl.includes("calculateNew"), `copy as curl: ${curl}`);
check(await page.locator("#request-detail a", { hasText: "Swagger UI" }).getAttribute("href").then((href) => href.startsWith("/docs/")), "the Swagger UI link");
await page.locator("#filter-status").selectOption("4");
check(await page.locator("#journal tbody tr").count() === 1, "the 4xx filter");
await page.locator("#filter-status").selectOption("");
await page.locator("#filter-operation").selectOption("getSiteBillingConfig");
check(await page.locator("#journal tbody tr").count() === 1, "the operation filter");
await page.locator("#filter-operation").selectOption("");
await page.locator("#filter-text").fill("calculateNew");
check(await page.locator("#journal tbody tr").count() === 1, "the path filter");
await page.locator("#filter-text").fill("");
ok("opened the refused entry: status, bodies, Swagger UI link, curl without the token; filtered by status class, operation and path");
// A live update keeps the keyboard focus on the entry it was on.
await page.locator("#journal tbody tr button").nth(1).focus();
const focusedKey = await page.evaluate(() => document.activeElement.dataset.key);
await api("GET", `/api/billing/siteBillingConfigs/${siteId}`, token);
await page.waitForFunction(() => document.querySelectorAll("#journal tbody tr").length === 4);
check(await page.evaluate(() => document.activeElement.dataset.key) === focusedKey, "the focus survives a live update");
ok("a live update of the journal keeps the keyboard focus where it was");
await checkScreen("requests");

// Time: a month ahead runs the renewal; its invoice and the new next billing date show in State.
const before = (await api("GET", `/api/billing/siteBillingConfigs/${siteId}`, token)).body.nextBillingDate;
await screen("time");
await page.locator("#clock-now", { hasText: "Now" }).waitFor();
const clockText = await page.locator("#clock-now").innerText();
await page.locator("#advance-to").fill("2001-01-01T00:00");
await page.getByRole("button", { name: "Advance", exact: true }).click();
await page.locator("#problem").waitFor();
check(await page.locator("#clock-now").innerText() === clockText, "a refused advance changes nothing");
ok(`an advance into the past: the server's problem shown ("${(await page.locator("#problem").innerText()).slice(0, 70)}"), the clock unchanged`);
await page.getByRole("button", { name: "Advance a month" }).click();
await page.locator("#advances li", { hasText: "renewal" }).waitFor();
const advanced = await page.locator("#advances li").first().innerText();
check(!advanced.includes(": 0 renewal"), `the advance ran renewals: ${advanced}`);
// Then to the site's next billing date, chosen in the select (its label names the date).
await page.locator("#period-site").selectOption(String(siteId));
await page.getByRole("button", { name: "Advance to its next billing date" }).click();
await page.locator("#advances li").nth(1).waitFor();
const toDate = await page.locator("#advances li").first().innerText();
check(/: 1 renewal invoice$/.test(toDate), `to the next billing date: ${toDate}`);
await checkScreen("time");
const after = (await api("GET", `/api/billing/siteBillingConfigs/${siteId}`, token)).body.nextBillingDate;
check(after > before, `next billing date moved: ${before} -> ${after}`);
await screen("state");
await page.locator(".site").first().waitFor();
const stateText = await page.locator(`.site[aria-label="Site ${siteId}"]`).innerText();
check(stateText.includes(after.slice(0, 10)), `State shows the new next billing date ${after}`);
const invoicesAfter = await page.locator(`.site[aria-label="Site ${siteId}"] .invoice`).count();
check(invoicesAfter >= 2, `the renewal's invoice beside the first: ${invoicesAfter}`);
ok(`${advanced}, then ${toDate}; State shows next billing date ${after.slice(0, 10)} and ${invoicesAfter} invoices of site ${siteId}`);
await checkScreen("state");

// Money as the API writes it (at least two decimals, never a float's `13.2` or `0`), invoices
// newest first, and no screen wider than the window at a phone's, a tablet's and a desktop's width.
const money = await page.locator(`.site[aria-label="Site ${siteId}"] td.money`).allInnerTexts();
check(money.length > 0 && money.every((text) => /^-?\d+\.\d{2,}$/.test(text)), `amounts as written: ${money.slice(0, 12).join(" ")}`);
const captions = await page.locator(`.site[aria-label="Site ${siteId}"] .invoice caption`).allInnerTexts();
const froms = captions.map((caption) => caption.match(/service from (\d{4}-\d{2}-\d{2})/)?.[1] || "");
check(froms.every((from, i) => i === 0 || froms[i - 1] >= from), `invoices newest first: ${froms.join(", ")}`);
check(captions.every((caption) => /, (paid|credit|open \(unpaid or draft\))$/.test(caption)), `each invoice's status: ${captions.join(" | ")}`);
const plans = await page.locator(`.site[aria-label="Site ${siteId}"] .invoice tbody tr td:nth-child(2)`).allInnerTexts();
check(plans.length > 0 && plans.every((plan) => /^\S.* \(plan \d+\)$/.test(plan)), `each line's plan by name: ${plans.slice(0, 6).join(" | ")}`);
for (const width of [360, 768, 1440]) {
  await page.setViewportSize({ width, height: 900 });
  for (const name of ["state", "requests", "time", "faults"]) {
    await screen(name);
    await page.waitForTimeout(200);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 0, `${name} at ${width} px overflows by ${overflow} px`);
    await page.screenshot({ path: `${outputDir}/console-${name}-${width}.png`, fullPage: true });
  }
}
await page.setViewportSize({ width: 1400, height: 1000 });
await screen("state");
await page.locator(".site").first().waitFor();
check((await fetch(`${base}/console/favicon.svg`)).status === 200, "the favicon is served");
ok("money with its digits, invoices newest first with their status and plan names, no screen overflows at 360, 768 or 1440 px (screenshots kept), the favicon served");

// State: the sandbox as it is now, downloaded as a data set file (loaded back at the end).
const [download] = await Promise.all([
  page.waitForEvent("download"),
  page.getByRole("button", { name: "Download as data set" }).click(),
]);
const snapshotPath = await download.path();
const snapshot = JSON.parse(readFileSync(snapshotPath, "utf8"));
check(download.suggestedFilename() === `sandbox-${partnerId}.json`, `the file's name: ${download.suggestedFilename()}`);
check(snapshot.sites.length === sites.length && snapshot.clock && snapshot.invoices.length > 0, "the snapshot holds the sandbox");
check(!JSON.stringify(snapshot).includes("passwordHash"), "no password hash in the snapshot");
ok(`downloaded ${download.suggestedFilename()}: ${snapshot.sites.length} sites, ${snapshot.invoices.length} invoices, clock ${snapshot.clock}`);

// The demo sandbox's credentials for the reader's own client, and a way back to it after signing out.
const remembered = await page.evaluate(() => JSON.parse(sessionStorage.getItem("switchboard.console.sandbox")));
const shown = await page.locator("#credentials").textContent();
check(remembered.partnerId === partnerId && shown.includes(remembered.email) && shown.includes(remembered.password), "State shows the sandbox's email and password");
const outside = await fetch(`${base}/api/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", email: remembered.email, password: remembered.password }) });
check(outside.status === 200, `they sign in from outside the page (${outside.status})`);
await page.getByRole("button", { name: "Sign out" }).click();
await page.locator("#sandbox-form").waitFor();
const card = await page.locator("#sandbox-text").innerText();
check(card.includes("did not delete it") && card.includes("Delete the sandbox"), `the signed-out sandbox says it stays and how to delete it: ${card}`);
await page.getByRole("button", { name: "Sign in again" }).click();
await page.locator("#who-text", { hasText: `partner ${partnerId}` }).waitFor();
await screen("state");
ok(`State shows the sandbox's credentials; signed out, "Your sandbox" signs back in to partner ${partnerId}`);

// Faults: a 503 armed from the form, the faulted request in the journal.
await screen("faults");
await page.locator("#fault-operation option").first().waitFor({ state: "attached" });
await page.locator("#fault-operation").selectOption("getSite");
await page.locator("#fault-kind").selectOption("status");
await page.locator("#fault-status").fill("503");
await page.locator("#fault-times").fill("2");
await page.getByRole("button", { name: "Arm" }).click();
await page.locator("#fault-list td", { hasText: "getSite" }).waitFor();
await page.getByRole("button", { name: "Disarm the status fault of getSite" }).focus();
await page.waitForTimeout(2500); // the list is polled every 2 s
check(await page.evaluate(() => document.activeElement?.textContent) === "Disarm", "the focus survives the faults' polling");
await checkScreen("faults");
check((await api("GET", `/api/billing/sites/${siteId}`, token)).status === 503, "the faulted request answers 503");
await screen("requests");
await page.locator("#journal tbody tr", { hasText: "fault: status" }).waitFor();
await screen("faults");
await page.getByRole("button", { name: "Disarm the status fault of getSite" }).click();
await page.locator("#fault-list", { hasText: "No fault is armed" }).waitFor();
check((await api("GET", "/api/test/faults", token)).body.length === 0, "disarmed");
ok("armed a 503 on getSite from the form, saw the faulted request in the journal, disarmed it");

// Hostile bodies are inert text and break no layout.
const long = "A".repeat(15000);
const payload = { name: "<script>alert(1)</script><img src=x onerror=alert(2)>", website: "javascript:alert(3)", long };
await api("POST", `/api/billing/subscriptions:calculateNew?siteId=${siteId}`, token, { json: payload });
await screen("requests");
hostile = true;
await page.locator("#journal tbody tr", { hasText: "calculateNew" }).first().getByRole("button").click();
await page.locator("#request-detail pre.body").first().waitFor();
const inert = await page.evaluate(() => ({
  images: document.querySelectorAll("img").length,
  scripts: [...document.scripts].filter((s) => !s.src.endsWith("/console/main.js")).length,
  links: [...document.querySelectorAll("a")].filter((a) => a.getAttribute("href")?.startsWith("javascript")).length,
  shown: document.querySelector("#request-detail pre.body").textContent.includes("<script>alert(1)</script>"),
  overflow: document.documentElement.scrollWidth - window.innerWidth,
}));
await page.waitForTimeout(1200);
hostile = false;
check(inert.images === 0 && inert.scripts === 0 && inert.links === 0 && inert.shown && inert.overflow <= 0, `hostile bodies: ${JSON.stringify(inert)}`);
checkFailures();
await screenshot("hostile");
ok("a body with <script>, <img onerror>, javascript: and 15,000 characters on one line shows as text, nothing runs, no page overflow");

// A hash naming something every object inherits opens the Requests screen, not a blank page.
for (const inherited of ["constructor", "__proto__", "toString"]) {
  await page.goto(`${base}/console#${inherited}`);
  await page.locator('#screen[data-screen="requests"]').waitFor({ timeout: 5000 });
}
checkFailures();
ok("#constructor, #__proto__ and #toString open the Requests screen");

// 1,000 entries: how long the journal screen takes to show them (reported, not asserted).
await Promise.all(Array.from({ length: 20 }, async (_, worker) => {
  for (let i = worker; i < 1000; i += 20) await api("GET", "/api/billing/products", token);
}));
await page.goto(`${base}/console#requests`);
const renders = [];
for (let load = 0; load < 5; load++) {
  await page.reload();
  await page.getByRole("button", { name: "Show all 1000" }).waitFor();
  renders.push(await page.evaluate(() => Number(document.body.dataset.journalRenderedMs)));
}
renders.sort((a, b) => a - b);
const drawAll = await page.evaluate(() => {
  const started = performance.now();
  document.querySelector("button.more").click();
  void document.body.offsetHeight; // the layout too
  return Math.round(performance.now() - started);
});
check(await page.locator("#journal tbody tr").count() === 1000, "Show all draws every entry");
console.log(`    the journal screen with 1,000 entries (the newest 200 drawn) was interactive ${renders[2]} ms after the page load started`
  + ` (median of 5: ${renders.join(", ")}); "Show all" drew the 1,000 rows in ${drawAll} ms`);

await screen("requests");
await page.getByRole("button", { name: "Clear the journal" }).click();
await page.locator("p", { hasText: "0 of 0 requests" }).waitFor();
check((await api("GET", "/api/test/requests", token)).body.length === 0, "the journal cleared");
ok("cleared the journal");

// A fault armed and disarmed by the suite (not the console) is an entry of its own kind.
const armedBySuite = await api("POST", "/api/test/faults", token, { json: { operationId: "listSites", kind: "status", status: 503 } });
check(armedBySuite.status === 201, `the suite armed a fault: ${armedBySuite.status}`);
check((await api("DELETE", `/api/test/faults/${armedBySuite.body.id}`, token)).status === 204, "the suite disarmed it");
await screen("requests");
await page.locator("#journal tbody tr", { hasText: "test fault" }).nth(1).waitFor();
ok("a fault the suite armed and disarmed shows in Requests as two test fault entries");

// Reset, then delete: the sandbox and its token are gone.
await screen("state");
await page.getByRole("button", { name: "Reset to how it was created" }).click();
await page.waitForFunction((id) => document.querySelectorAll(`.site[aria-label="Site ${id}"] .invoice`).length === 1, siteId);
token = await page.evaluate(() => sessionStorage.getItem("switchboard.console.token"));
ok("reset: the renewal's invoice is gone");
await page.getByRole("button", { name: "Delete the sandbox…" }).click();
await page.getByRole("button", { name: /Yes, delete/ }).click();
await page.locator("#sign-in").waitFor();
check((await api("GET", `/api/test/sandboxes/${partnerId}`, token)).status === 401, "the deleted sandbox's token is refused");
check(await page.locator("#sandbox-form").isHidden(), "a deleted sandbox is not offered to sign in again");
await page.locator("#token").fill(token);
await page.getByRole("button", { name: "Use this token" }).click();
await page.locator("#problem").waitFor();
check(await page.locator("#sign-in").isVisible(), "the deleted sandbox's token does not sign in");
ok(`deleted; its token shows the server's problem: "${(await page.locator("#problem").innerText()).slice(0, 70)}"`);

// An agent's token: its site's platform journal; the billing state is a partner's.
const agentSandbox = await (await fetch(`${base}/api/test/sandboxes`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" })).json();
const agent = agentSandbox.sites[0].agents[0];
check((await api("GET", "/v4/secureform/secureForms", agent.accessToken)).status === 200, "the agent's request");
// Its partner first: one advance of the clock from the Time screen, then signed out.
await page.locator("#token").fill(agentSandbox.partner.accessToken);
await page.getByRole("button", { name: "Use this token" }).click();
await page.locator("#who-text", { hasText: `partner ${agentSandbox.partnerId}` }).waitFor();
await screen("time");
await page.locator("#clock-now", { hasText: "Now" }).waitFor();
await page.getByRole("button", { name: "Advance a day" }).click();
await page.locator("#advances li").first().waitFor();
await page.getByRole("button", { name: "Sign out" }).click();
await page.locator("#sign-in").waitFor();
await page.locator("#token").fill(agent.accessToken);
await page.getByRole("button", { name: "Use this token" }).click();
await page.locator("#who-text", { hasText: `site ${agentSandbox.sites[0].siteId} (agent)` }).waitFor();
await screen("requests");
await page.locator("#journal tbody tr", { hasText: "listSecureForms" }).waitFor();
await screen("state");
await page.locator("#sites", { hasText: "sign in with a partner token" }).waitFor();
// The partner's advance was that session's: the agent's Time screen lists none.
await screen("time");
check(await page.locator("#advances li").count() === 0, "the Time screen keeps no advances of the tenant signed in before");
await api("DELETE", `/api/test/sandboxes/${agentSandbox.partnerId}`, agentSandbox.partner.accessToken);
ok("an agent's token: its site's platform requests in the journal; State asks for a partner token; no advances of another tenant");

// Sign-in: a new sandbox from the downloaded file, in the state it was downloaded in.
await page.getByRole("button", { name: "Sign out" }).click();
await page.locator("#sign-in").waitFor();
await page.locator("#data-set-file").setInputFiles(snapshotPath);
await page.getByRole("button", { name: "New sandbox from this file" }).click();
await page.locator("#who-text", { hasText: "partner" }).waitFor();
const loadedToken = await page.evaluate(() => sessionStorage.getItem("switchboard.console.token"));
const loadedPartner = JSON.parse(Buffer.from(loadedToken.split(".")[1], "base64url")).partnerId;
check(loadedPartner !== partnerId, "a new sandbox");
const loadedSites = (await api("GET", "/api/billing/sites", loadedToken)).body;
check(loadedSites[0].siteBillingConfig.nextBillingDate === after, `its next billing date is the snapshot's: ${loadedSites[0].siteBillingConfig.nextBillingDate}`);
await screen("state");
await page.waitForFunction((n) => document.querySelectorAll(".site")[0]?.querySelectorAll(".invoice").length === n, invoicesAfter);
await api("DELETE", `/api/test/sandboxes/${loadedPartner}`, loadedToken);
ok(`a sandbox from that file: partner ${loadedPartner}, next billing date ${after.slice(0, 10)}, ${invoicesAfter} invoices in State`);

checkFailures();
await browser.close();
