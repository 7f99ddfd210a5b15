// Swagger UI in a real browser (scripts/test.sh): Debian's Chromium driven by
// playwright-core opens /docs, signs in as pre-filled, authorizes with a token, runs "Try it out" on
// listing secure forms, switches to the partner billing document, authorizes
// again and reads a site, checking the 200s on the page. Saves a screenshot.
//
//   node swagger-ui.mjs <base-url> <platform-token> <partner-token> <screenshot.png>
import { launchChromium } from "./chromium.mjs";

const [base, platformToken, partnerToken, screenshot] = process.argv.slice(2);

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
page.setDefaultTimeout(20000);

function ok(what) {
  console.log(`ok  ${what}`);
}

async function authorize(token) {
  await page.locator(".auth-wrapper .authorize").click();
  const dialog = page.locator(".modal-ux");
  await dialog.locator("input[type=text], input[type=password]").first().fill(token);
  await dialog.locator("button.authorize").first().click();
  await dialog.locator("button.btn-done").first().click();
  await dialog.waitFor({ state: "detached" });
}

async function tryOut(operationBlock, fill) {
  const block = page.locator(operationBlock);
  await block.locator(".opblock-summary").first().click();
  await block.getByRole("button", { name: "Try it out" }).click();
  if (fill) await fill(block);
  await block.getByRole("button", { name: "Execute" }).click();
  const status = block.locator(".live-responses-table .response .response-col_status").first();
  await status.waitFor();
  return (await status.innerText()).trim();
}

await page.goto(`${base}/docs/`);
await page.locator(".information-container .title").first().waitFor();
const title = await page.locator(".information-container .title").first().innerText();
if (!title.includes("platform")) throw new Error(`first document: ${title}`);
ok(`opened /docs: ${title.split("\n")[0]}`);

// Signing in as pre-filled: the form Swagger UI builds from the schema carries the demo account.
const signIn = await tryOut("#operations-Authentication-createPlatformToken");
if (signIn !== "200") throw new Error(`createPlatformToken as pre-filled answered ${signIn}`);
ok("Try it out: createPlatformToken as pre-filled answered 200 (the demo admin's sign-in)");

await authorize(platformToken);
ok("authorized with the platform token");
const forms = await tryOut("#operations-Secure_forms-listSecureForms");
if (forms !== "200") throw new Error(`listSecureForms answered ${forms}`);
ok("Try it out: listSecureForms answered 200");

await page.locator(".topbar select").selectOption({ label: "partner billing v1: sites, billing, subscriptions, invoices" });
await page.locator(".information-container .title", { hasText: "partner billing" }).waitFor();
ok("switched to the partner billing document");
await authorize(partnerToken);
ok("authorized with the partner token");
const site = await tryOut("#operations-Sites-getSite", async (block) => {
  await block.locator("tr[data-param-name='id'] input").fill("10000");
});
if (site !== "200") throw new Error(`getSite answered ${site}`);
ok("Try it out: getSite(10000) answered 200");

// Back to the platform document: its token is still there (each document has its own scheme,
// and Swagger UI keeps authorizations), and the Authorize dialog says where a token comes from.
await page.locator(".topbar select").selectOption({ label: "platform v4: secure forms and voicebots" });
await page.locator(".information-container .title", { hasText: "platform" }).waitFor();
await page.locator(".auth-wrapper .authorize").click();
const dialog = await page.locator(".modal-ux").innerText();
if (!dialog.includes("admin@site10000.example") || !/Logout/i.test(dialog)) throw new Error(`the Authorize dialog: ${dialog.slice(0, 300)}`);
await page.locator(".modal-ux button.btn-done").first().click();
const again = await tryOut("#operations-Voicebots-listVoicebots");
if (again !== "200") throw new Error(`listVoicebots after switching back answered ${again}`);
ok("switched back: the platform token kept, the dialog names the demo account; listVoicebots answered 200");

await page.screenshot({ path: screenshot, fullPage: false });
ok(`screenshot: ${screenshot}`);
await browser.close();
