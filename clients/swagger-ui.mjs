// Swagger UI in a real browser (scripts/test.sh): Debian's Chromium driven by
// playwright-core opens /docs, signs in as pre-filled, authorizes with a token, runs "Try it out" on
// listing secure forms, switches to the partner billing document, authorizes
// again, reads a site, previews and applies a new subscription (the apply twice,
// with an edited body) and reads an error example, checking the answers on the
// page. Saves a screenshot.
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

// A preview and an apply as pre-filled, then the apply again with an edited body: with the
// pre-filled key it is refused (the key's description says to change it), with a key of its own
// it is applied. The answers name their currency.
const operations = "#operations-Subscription_operations-";
const previewed = await tryOut(`${operations}calculateNewSubscription`);
if (previewed !== "200") throw new Error(`calculateNewSubscription as pre-filled answered ${previewed}`);
const previewBody = await page.locator(`${operations}calculateNewSubscription .live-responses-table .microlight`).first().innerText();
if (!previewBody.includes('"currencyId"')) throw new Error(`the preview names no currency: ${previewBody}`);
ok("Try it out: calculateNewSubscription as pre-filled answered 200 with its currency");
const applied = await tryOut(`${operations}addSubscription`);
if (applied !== "200") throw new Error(`addSubscription as pre-filled answered ${applied}`);
const apply = page.locator(`${operations}addSubscription`);
const body = apply.locator("textarea.body-param__text");
await body.fill((await body.inputValue()).replace(/"name": *"[^"]*"/, '"name": "Edited in Swagger UI"'));
async function execute() {
  await apply.getByRole("button", { name: "Execute" }).click();
  const status = apply.locator(".live-responses-table .response .response-col_status").first();
  await status.waitFor();
  return (await status.innerText()).trim();
}
const reused = await execute();
if (reused !== "422") throw new Error(`an edited body under the pre-filled key answered ${reused}`);
await apply.locator("tr[data-param-name='Idempotency-Key'] input").fill(`swagger-ui-${Date.now()}`);
const ownKey = await execute();
if (ownKey !== "200") throw new Error(`an edited body under a key of its own answered ${ownKey}`);
ok("Try it out: addSubscription as pre-filled 200; edited under the same key 422, under its own key 200");

// An error response's example is of its own status (getSite's 404 shows a 404).
const notFound = page.locator("#operations-Sites-getSite .responses-table tr.response[data-code='404']");
const example = await notFound.locator(".microlight, .example").first().innerText();
if (!/"status": *404/.test(example)) throw new Error(`getSite's 404 example: ${example.slice(0, 300)}`);
ok("getSite's 404 shows a 404 example");

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
