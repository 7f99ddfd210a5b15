#!/usr/bin/env bash
# How long a newcomer's first build takes, beside the benchmark's ceiling (a
# bare axum + tokio server, bench/ceiling) built the same way on the same
# machine: the ratio is the figure (docs/decisions/build-time.md; docs/performance.md, "Build time").
#
#   scripts/build-time.sh              release: cargo build --release
#   PROFILE=dev scripts/build-time.sh  debug:   cargo build
#   PROFILE=ci scripts/build-time.sh   what CI builds and runs before its other
#                                      steps (.ci/run: no incremental state): clippy,
#                                      the tests' build, the Rust suite on SQLite
#   REV=abc123 scripts/build-time.sh   another commit (default HEAD)
#
# A fresh clone of REV with a fresh target dir each: crates are fetched first
# (not timed, as on a machine that has them), then each build is timed alone,
# switchboard first. `--timings` writes cargo's report (the slowest units, the
# critical path) to target/build-time/REV-PROFILE.html, and the binary beside
# it (REV-PROFILE-switchboard, for scripts/ab.sh). Last, one handler's
# file is edited and built again (the edit loop). Nothing else should run
# meanwhile: the figures are wall-clock seconds on all the machine's cores.
set -euo pipefail
# What a newcomer has: cargo's defaults (CI sets CARGO_INCREMENTAL=0).
unset CARGO_INCREMENTAL CARGO_TARGET_DIR
cd "$(dirname "$0")/.."
PROFILE=${PROFILE:-release}
REV=$(git rev-parse --short "${REV:-HEAD}")
case "$PROFILE" in
  release) flags=(--release) ;;
  dev | ci) flags=() ;;
  *) echo "PROFILE is release, dev or ci" >&2; exit 2 ;;
esac
out="$(pwd)/target/build-time"
mkdir -p "$out"
work=$(mktemp -d /tmp/switchboard-build-time.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone -q --no-hardlinks . "$work/clone"
git -C "$work/clone" checkout -q "$REV"
cd "$work/clone"
cargo fetch --locked -q

timed() { # what, then the command
  local what=$1 started
  shift
  started=$(date +%s.%N)
  "$@" >"$work/$what.log" 2>&1 || { tail -n 20 "$work/$what.log" >&2; exit 1; }
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.0f}')" "$started" "$(date +%s.%N)"
}
if [ "$PROFILE" = ci ]; then
  # No ceiling here: the figure is seconds, compared between two commits built in turn.
  export CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$work/target"
  clippy=$(timed clippy cargo clippy --workspace --all-targets --locked -- -D warnings)
  build=$(timed build cargo test --workspace --locked --no-run)
  tests=$(timed tests cargo test --workspace --locked)
  echo "$REV ci on $(nproc) cores: clippy ${clippy} s, the tests' build ${build} s, the Rust suite on SQLite" \
    "${tests} s; together $((clippy + build + tests)) s"
  exit 0
fi
own=$(CARGO_TARGET_DIR="$work/target" timed switchboard \
  cargo build --locked "${flags[@]}" --timings)
cp "$work"/target/cargo-timings/cargo-timing.html "$out/$REV-$PROFILE.html"
# The binary too, for scripts/ab.sh beside another build.
cp "$work/target/$([ "$PROFILE" = dev ] && echo debug || echo release)/switchboard" "$out/$REV-$PROFILE-switchboard"
ceiling=$(CARGO_TARGET_DIR="$work/ceiling-target" timed ceiling \
  cargo build --locked "${flags[@]}" -p ceiling)
# The edit loop: one handler's file changed (a line added), built again.
echo "// an edit" >>crates/voicebots/src/bots/routes.rs
edit=$(CARGO_TARGET_DIR="$work/target" timed edit cargo build --locked "${flags[@]}")
units=$(grep -c "Compiling" "$work/switchboard.log" || true)
echo "$REV $PROFILE on $(nproc) cores: switchboard ${own} s ($units units), bare axum ${ceiling} s," \
  "ratio $(python3 -c "import sys; print(f'{int(sys.argv[1]) / int(sys.argv[2]):.1f}')" "$own" "$ceiling")x;" \
  "after a handler's edit ${edit} s; report: target/build-time/$REV-$PROFILE.html"
