"""switchboard in a pytest suite with Testcontainers for Python (docs/containers.md).

Needs Docker (or Podman's socket) where the suite runs; CI here imports this
module against the pinned testcontainers release to check the API it uses.

    pip install "testcontainers==4.15.0" pytest
    pytest examples/testcontainers/test_switchboard.py
"""

import json
import urllib.request

import pytest
from testcontainers.core.container import DockerContainer
from testcontainers.core.wait_strategies import ExecWaitStrategy, HttpWaitStrategy

# A pinned version: X.Y.Z, or X.Y for its patches. Never `latest`.
IMAGE = "ghcr.io/switchboard/switchboard:0.1.0"


@pytest.fixture(scope="session")
def switchboard_url():
    container = (
        DockerContainer(IMAGE)
        .with_exposed_ports(8080)
        .with_env("SWITCHBOARD_TEST_MODE", "true")
        # Ready means the readiness probe answers 200 (about a second after start).
        .waiting_for(HttpWaitStrategy(8080, "/health/ready").for_status_code(200).with_startup_timeout(30))
    )
    with container:
        yield f"http://{container.get_container_host_ip()}:{container.get_exposed_port(8080)}"


def healthcheck_wait():
    """The other way to wait: the image's own command, run in the container."""
    return ExecWaitStrategy(["/usr/local/bin/switchboard", "healthcheck"])


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return answer.status, json.load(answer)


def test_a_sandbox_of_its_own(switchboard_url):
    status, sandbox = post(f"{switchboard_url}/api/test/sandboxes", {"dataSet": "demo"})
    assert status == 201
    assert sandbox["sites"][0]["agents"][0]["accessToken"]
