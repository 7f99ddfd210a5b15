// Debian's Chromium as the browser checks launch it (scripts/test.sh): headless,
// and without the background connections this machine's closed network refuses.
import { chromium } from "playwright-core";

export function launchChromium() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
}
