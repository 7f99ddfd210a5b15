// "Copy as curl" pasted into a shell runs curl and nothing else, whatever the
// journal entry holds (docs/decisions/other-peoples-data.md): each hostile entry's command is run
// by bash with `curl` a function that records its arguments, and a marker
// file that any planted command would create must not appear. The arguments
// curl gets are the entry's own, byte for byte, after `--globoff` (a path or
// query with `[1-9]` or `{a,b}` is one request, not many).
//
//     node clients/console-curl.test.mjs

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { curlCommand } from "../console/curl.js";

const dir = mkdtempSync(join(tmpdir(), "console-curl-"));
const marker = join(dir, "planted");
const plants = [
  `harmless\n\ntouch ${marker} #`,
  `$(touch ${marker})`,
  `\`touch ${marker}\``,
  `'; touch ${marker}; echo '`,
  `"; touch ${marker}; echo "`,
  `a\\'; touch ${marker} #`,
  `\r\ntouch ${marker}\n`,
  `x' $(touch ${marker}) '`,
  // curl's URL globbing: without --globoff this would be a billion requests.
  `[1-999999999]{a,b}`,
];
const entries = [];
for (const plant of plants) {
  entries.push(
    { method: "POST", path: "/api/billing/x", query: "", requestBody: plant },
    { method: "POST", path: "/api/billing/x", query: "", requestBody: { name: plant, [plant]: [plant] } },
    { method: "GET", path: `/v4/secureform/${plant}`, query: `q=${plant}` },
    { method: "POST", path: "/api/billing/x", query: "", idempotencyKey: plant, requestBody: { a: 1 } },
    { method: plant, path: "/v4/x", query: "" },
  );
}
let checked = 0;
for (const entry of entries) {
  const command = curlCommand(entry, "http://127.0.0.1:8080");
  const args = join(dir, "args");
  const script = `curl() { for a in "$@"; do printf '%s\\0' "$a"; done > ${JSON.stringify(args)}; }\n${command}\n`;
  writeFileSync(join(dir, "run.sh"), script);
  execFileSync("bash", [join(dir, "run.sh")], { env: { PATH: process.env.PATH, SWITCHBOARD_TOKEN: "t" }, stdio: "pipe" });
  if (existsSync(marker)) throw new Error(`a planted command ran:\n${command}`);
  const got = readFileSync(args, "utf8").split("\0").slice(0, -1);
  const target = `http://127.0.0.1:8080${entry.path}${entry.query ? `?${entry.query}` : ""}`;
  const expected = ["--globoff", "-X", entry.method, target, "-H", "Authorization: Bearer t"];
  if (entry.idempotencyKey) expected.push("-H", `Idempotency-Key: ${entry.idempotencyKey}`);
  if (typeof entry.requestBody === "object") expected.push("-H", "Content-Type: application/json", "--data-binary", JSON.stringify(entry.requestBody));
  if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`curl got ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
  if (typeof entry.requestBody === "string" && command.includes(entry.requestBody)) throw new Error("a text body is repeated");
  checked += 1;
}
rmSync(dir, { recursive: true });
console.log(`    ${checked} hostile entries: curl got each entry's own arguments; no planted command ran`);
