// Keeps the test console open on its Requests screen (polling the journal)
// until killed: the "console open" side of `NEW_CONSOLE=1 scripts/ab.sh`.
//
//   node console-open.mjs <base-url> <partner-token>
import { launchChromium } from "./chromium.mjs";

const [base, token] = process.argv.slice(2);
const browser = await launchChromium();
const page = await browser.newPage();
await page.goto(`${base}/console`);
await page.evaluate((value) => sessionStorage.setItem("switchboard.console.token", value), token);
await page.goto(`${base}/console#requests`);
await page.reload();
await page.locator("#journal").waitFor();
console.log("console open on the Requests screen");
process.on("SIGTERM", async () => { await browser.close(); process.exit(0); });
await new Promise(() => {});
