// switchboard in a Node test suite with Testcontainers for Node
// (docs/containers.md). Needs Docker where the suite runs; CI here type-checks
// this file against the pinned testcontainers release (package.json).
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

export async function createSandbox(url: string): Promise<unknown> {
  const answer = await fetch(`${url}/api/test/sandboxes`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ dataSet: "demo" }),
  });
  if (answer.status !== 201) throw new Error(`sandbox: ${answer.status}`);
  return answer.json();
}
