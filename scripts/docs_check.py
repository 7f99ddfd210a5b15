"""Runs the shell blocks of the README and the walk-through as written, in
order, each file against a fresh server on port 8080 in test mode (the address
the docs name), so a documented command that stops working fails the build.
The other pages' blocks are fragments of a reader's own setup (a `docker run`,
a `$PARTNER` of their suite, generators to install) and are not run here; the
runnable equivalents are in clients/ and clients/example_suite.

Every `sh` block of the files listed runs in one bash session per file
(`set -euo pipefail`: a step whose token cannot be read fails); `curl` is
wrapped to fail the run on an answer no step means to get: no answer, 401,
403 (a step on a tenant test mode leaves alone), 404, 405, 415 or any 5xx but
a fault the walk-through armed itself. A block that is not meant to run is fenced as `text`.

    python3 scripts/docs_check.py --bin target/debug/switchboard
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, time, urllib.request

FILES = ["README.md", "docs/walkthrough.md"]
CURL = r'''
curl() {
  local out status
  out=$(mktemp)
  status=$(command curl -o "$out" -w '%{http_code}' "$@") || { echo "curl failed: $*" >&2; return 1; }
  cat "$out"
  # A fault the walk-through armed (test mode's 503999) is an answer it means to get.
  case "$status" in
    000|401|403|404|405|415|5??) grep -q 'problem:test-fault' "$out" || { echo "answered $status: curl $*" >&2; rm -f "$out"; return 1; } ;;
  esac
  rm -f "$out"
  echo "    [$status]" >&2
}
'''

parser = argparse.ArgumentParser()
parser.add_argument("--bin", required=True)
args = parser.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.path.abspath(args.bin)
failed = []
for name in FILES:
    text = open(os.path.join(root, name)).read()
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
    work = tempfile.mkdtemp(prefix="switchboard-docs.")
    env = dict(os.environ, SWITCHBOARD_SECRET="docs-check-secret-0123456789abcdef0123",
               SWITCHBOARD_DATABASE_URL=f"sqlite://{work}/docs.db?mode=rwc")
    log = open(os.path.join(work, "server.log"), "w")
    server = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:8080", "--test-mode"],
                              env=env, stdout=log, stderr=log, cwd=work)
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen("http://127.0.0.1:8080/health/ready", timeout=1)
                break
            except Exception:
                time.sleep(0.1)
        # `cargo run` lines start the server the check already started.
        script = "set -euo pipefail\n" + CURL + "\n".join(
            line for block in blocks for line in block.splitlines() if not line.startswith(("cargo run", "scripts/test.sh")))
        run = subprocess.run(["bash", "-c", script], cwd=work, capture_output=True, text=True, timeout=300)
        print(f"    {name}: {len(blocks)} blocks, exit {run.returncode}")
        if run.returncode != 0:
            print(run.stdout[-3000:], run.stderr[-3000:])
            failed.append(name)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
sys.exit(f"documented commands failed: {failed}" if failed else 0)
