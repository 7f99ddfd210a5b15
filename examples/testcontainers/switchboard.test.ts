// switchboard in a Node test suite with Testcontainers for Node
// (docs/containers.md): one container for the file, a sandbox per test. Needs
// Docker where the suite runs; CI here type-checks it against the pinned
// testcontainers release (package.json), as it cannot run containers.
//
//   npm install testcontainers@12.2.0 && node --test --experimental-strip-types switchboard.test.ts
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { GenericContainer, StartedTestContainer, Wait } from "testcontainers";

// A pinned version: X.Y.Z, or X.Y for its patches. Never `latest`.
const IMAGE = "ghcr.io/switchboard/switchboard:0.1.0";

export interface Switchboard {
  container: StartedTestContainer;
  url: string;
}

export async function startSwitchboard(): Promise<Switchboard> {
  const container = await new GenericContainer(IMAGE)
    .withExposedPorts(8080)
    .withEnvironment({ SWITCHBOARD_TEST_MODE: "true" })
    // Ready when the readiness probe answers 200. Alternatives:
    // Wait.forLogMessage(/ready to serve/) or Wait.forHealthCheck() (the
    // image's HEALTHCHECK; not forSuccessfulCommand: the image has no shell).
    .withWaitStrategy(Wait.forHttp("/health/ready", 8080).forStatusCode(200))
    .withStartupTimeout(30_000)
    .start();
  return { container, url: `http://${container.getHost()}:${container.getMappedPort(8080)}` };
}

/** What a sandbox's creation answers that a test uses (the test document has it all). */
export interface Sandbox {
  partnerId: number;
  partner: { accessToken: string };
}

export async function createSandbox(url: string): Promise<Sandbox> {
  const answer = await fetch(`${url}/api/test/sandboxes`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ dataSet: "demo" }),
  });
  if (answer.status !== 201) throw new Error(`sandbox: ${answer.status}`);
  return (await answer.json()) as Sandbox;
}

let switchboard: Switchboard;
before(async () => {
  switchboard = await startSwitchboard();
});
after(async () => {
  await switchboard?.container.stop();
});

test("a sandbox's partner sees its own sites", async () => {
  const sandbox = await createSandbox(switchboard.url);
  const sites = await fetch(`${switchboard.url}/api/billing/sites`, {
    headers: { Authorization: `Bearer ${sandbox.partner.accessToken}` },
  });
  assert.equal(sites.status, 200);
  assert.ok(((await sites.json()) as unknown[]).length > 0);
});

test("another sandbox's partner is another tenant", async () => {
  const [first, second] = [await createSandbox(switchboard.url), await createSandbox(switchboard.url)];
  assert.notEqual(first.partnerId, second.partnerId);
  const other = await fetch(`${switchboard.url}/api/test/sandboxes/${second.partnerId}`, {
    headers: { Authorization: `Bearer ${first.partner.accessToken}` },
  });
  assert.equal(other.status, 404);
});
