#!/usr/bin/env bash
# Generates a client from each committed document with each mainstream
# generator (pinned), compiles it and runs the short scenario of
# clients/scenarios through it against a live server with the demo data:
#
#   openapi-generator 7.26.0: python, go, rust, typescript-fetch, typescript-axios;
#     java (native) compiled only (see its step)
#   @hey-api/openapi-ts, orval, openapi-typescript with openapi-fetch (versions in clients/package.json)
#   progenitor 0.11.2, from the OpenAPI 3.0.3 editions (openapi/*.openapi-3.0.json)
#
# (openapi-python-client runs in scripts/test.sh: clients/scenario.py.)
# Installs what it needs: openapi-generator-cli from PyPI (it carries the
# jar; Java from Debian when missing), Go and the one module the Go client
# imports (gopkg.in/validator.v2) from Debian. The npm packages of
# clients/package.json must be installed (`npm ci`).
#
#   clients/generated-clients.sh http://127.0.0.1:8080 TARGET_DIR
set -euo pipefail
BASE=$1
TARGET_DIR=$2
CLIENTS=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$CLIENTS")
OUT="$TARGET_DIR/generated-clients"
TS="$CLIENTS/scenarios/ts"
BIN="$CLIENTS/node_modules/.bin"
# Each step with the seconds since this script began (scripts/test.sh's steps say the run's).
log() { printf '\n==> %s   [%d s into the generated clients]\n' "$*" "$SECONDS"; }

apt_install() { # command package
  command -v "$1" >/dev/null 2>&1 && return 0
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}
apt_install java default-jre-headless
apt_install go golang-go
[ -d /usr/share/gocode/src/gopkg.in/validator.v2 ] || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-gopkg-validator.v2-dev >/dev/null
}

VENV="$TARGET_DIR/venv-generators"
[ -x "$VENV/bin/openapi-generator-cli" ] || {
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "openapi-generator-cli==7.26.0" "pydantic==2.14.4" "python-dateutil==4.0.0" \
    "urllib3==2.8.0" "typing_extensions==4.16.0"
}
rm -rf "$OUT" "$TS/generated"
mkdir -p "$OUT"

generate() { # document generator output [flags...]
  local doc=$1 generator=$2 output=$3
  shift 3
  mkdir -p "$(dirname "$output")"
  "$VENV/bin/openapi-generator-cli" generate -i "$ROOT/openapi/$doc.json" -g "$generator" -o "$output" "$@" \
    > "$output.log" 2>&1 || { cat "$output.log"; exit 1; }
}

log "openapi-generator python"
generate platform-v4 python "$OUT/python-platform" --additional-properties=packageName=platform_v4
# Money (`format: decimal`) as Python's Decimal: the scenario checks amounts arrive exact.
generate partner-billing-v1 python "$OUT/python-billing" --additional-properties=packageName=partner_billing_v1,mapNumberTo=Decimal
PYTHONPATH="$OUT/python-platform:$OUT/python-billing" "$VENV/bin/python" "$CLIENTS/scenarios/openapi_generator_python.py" "$BASE"

log "openapi-generator go (enumClassPrefix=true, money as float64)"
# Offline: the generated modules' one import outside the standard library
# comes from Debian's source package; the scenario's module points at all three.
GO_DEPS="$OUT/go-validator"
mkdir -p "$GO_DEPS"
cp /usr/share/gocode/src/gopkg.in/validator.v2/*.go "$GO_DEPS/" && rm -f "$GO_DEPS"/*_test.go
printf 'module gopkg.in/validator.v2\n\ngo 1.18\n' > "$GO_DEPS/go.mod"
for name in platform billing; do
  doc=$([ "$name" = platform ] && echo platform-v4 || echo partner-billing-v1)
  generate "$doc" go "$OUT/go-$name" --git-user-id switchboard --git-repo-id "$name" \
    --additional-properties="packageName=$name,enumClassPrefix=true" --type-mappings=number+decimal=float64
  (cd "$OUT/go-$name" && go mod edit -go=1.19 -replace "gopkg.in/validator.v2=$GO_DEPS")
done
cp -r "$CLIENTS/scenarios/go" "$OUT/go-scenario"
(
  cd "$OUT/go-scenario"
  go mod edit -replace "github.com/switchboard/platform=$OUT/go-platform" -replace "github.com/switchboard/billing=$OUT/go-billing" \
    -replace "gopkg.in/validator.v2=$GO_DEPS" -require gopkg.in/validator.v2@v2.0.1
  GOFLAGS=-mod=mod GOPROXY=off GOPATH="$OUT/gopath" GOCACHE="$TARGET_DIR/go-cache" go run . "$BASE"
)

# The Rust scenarios are built without debug info or incremental state: they
# are compiled to be run once, and their build dir is the largest of the run.
rust_client_run() { # manifest
  CARGO_TARGET_DIR="$TARGET_DIR/clients-rust" CARGO_PROFILE_DEV_DEBUG=0 CARGO_INCREMENTAL=0 \
    cargo run --quiet --manifest-path "$1" -- "$BASE"
}

log "openapi-generator rust"
generate platform-v4 rust "$OUT/rust-platform" --additional-properties=packageName=platform_v4
generate partner-billing-v1 rust "$OUT/rust-billing" --additional-properties=packageName=partner_billing_v1
cp -r "$CLIENTS/scenarios/rust" "$OUT/rust-scenario"
rust_client_run "$OUT/rust-scenario/Cargo.toml"

log "openapi-generator java (native): models and APIs compile"
# Compiled with javac against Debian's jars (Jackson, Jakarta annotations,
# Apache HttpClient): Maven Central is out of reach here. Debian has no
# jackson-datatype-jsr310, so the two date-time helpers that need it
# (RFC3339InstantDeserializer, RFC3339JavaTimeModule) and their registration
# are left out; every model and API class compiles as generated. Not run: without
# that module Jackson cannot read the answers' date-times.
apt_install javac default-jdk-headless
for package in libjackson2-databind-java libjackson2-core-java libjackson2-annotations-java libjakarta-annotation-api-java \
  libjsr305-java libhttpclient-java libhttpcore-java libhttpmime-java; do
  dpkg -s "$package" >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null; }
done
JARS=$(printf '/usr/share/java/%s.jar:' jackson-databind jackson-core jackson-annotations jakarta-annotation-api jsr305 httpclient httpcore httpmime)
for doc in platform-v4 partner-billing-v1; do
  generate "$doc" java "$OUT/java-$doc" --library native --additional-properties=openApiNullable=false,useJakartaEe=true
  sources="$OUT/java-$doc/src/main/java/org/openapitools/client"
  rm "$sources/RFC3339InstantDeserializer.java" "$sources/RFC3339JavaTimeModule.java"
  sed -i '/jsr310/d; /new JavaTimeModule()/d; /new RFC3339JavaTimeModule()/d' "$sources/ApiClient.java" "$sources/JSON.java"
  javac -nowarn -d "$OUT/java-$doc/classes" -cp "$JARS" $(find "$OUT/java-$doc/src/main/java" -name '*.java')
  echo "    $doc: $(find "$OUT/java-$doc/classes" -name '*.class' | wc -l) classes compiled"
done
# Money is `format: decimal`: Java's generator keeps it exact with no mapping of ours.
grep -q "private BigDecimal newAmount;" "$OUT/java-partner-billing-v1/src/main/java/org/openapitools/client/model/SubscriptionOutput.java" \
  || { echo "java: SubscriptionOutput.newAmount is not a BigDecimal"; exit 1; }
echo "    partner-billing-v1: money is java.math.BigDecimal"

log "progenitor (the OpenAPI 3.0.3 editions)"
rust_client_run "$CLIENTS/scenarios/progenitor/Cargo.toml"
# The Rust clients' build (1.7 GB with debug info) is needed by nothing after
# this step: CI (PRUNE_BUILDS=1, .ci/run) removes it to keep the disk free.
[ "${PRUNE_BUILDS:-0}" != 1 ] || rm -rf "$TARGET_DIR/clients-rust"

log "openapi-generator typescript-fetch and typescript-axios, @hey-api/openapi-ts, orval, openapi-typescript with openapi-fetch"
for generator in typescript-fetch typescript-axios; do
  generate platform-v4 "$generator" "$TS/generated/$generator/platform" --additional-properties=supportsES6=true
  generate partner-billing-v1 "$generator" "$TS/generated/$generator/billing" --additional-properties=supportsES6=true
done
"$BIN/openapi-ts" -i "$ROOT/openapi/platform-v4.json" -o "$TS/generated/hey-api/platform" > "$OUT/hey-api.log" 2>&1 || { cat "$OUT/hey-api.log"; exit 1; }
"$BIN/openapi-ts" -i "$ROOT/openapi/partner-billing-v1.json" -o "$TS/generated/hey-api/billing" >> "$OUT/hey-api.log" 2>&1 || { cat "$OUT/hey-api.log"; exit 1; }
(cd "$TS" && "$BIN/orval" --config orval.config.cjs > "$OUT/orval.log" 2>&1) || { cat "$OUT/orval.log"; exit 1; }
# openapi-typescript's flags: see scripts/test.sh.
for doc in platform-v4:platform partner-billing-v1:billing; do
  "$BIN/openapi-typescript" "$ROOT/openapi/${doc%%:*}.json" --enum --dedupe-enums --default-non-nullable false \
    -o "$TS/generated/openapi-typescript/${doc##*:}.ts" > "$OUT/openapi-typescript.log" 2>&1 || { cat "$OUT/openapi-typescript.log"; exit 1; }
done
ln -sfn ../../node_modules "$TS/node_modules"
"$BIN/tsc" -p "$TS/tsconfig.json" --rootDir "$TS"
for scenario in openapi-generator-fetch openapi-generator-axios hey-api orval openapi-fetch; do
  node "$TS/generated/js/$scenario.js" "$BASE"
done
