#!/usr/bin/env bash
# Builds the switchboard image from what the build produces: FROM scratch with
# the binary, the C runtime it links against (the loader, libc, libm,
# libgcc_s: `ldd` says which), a passwd entry for its non-root user and an
# empty /data that user owns. Nothing else: no shell, no package manager.
#
#   scripts/image.sh                  build with the `dist` profile (LTO), tag, save
#   PROFILE=release scripts/image.sh  the faster-to-build profile (CI's check)
#
# Tags `switchboard:<version>` and `switchboard:latest` in the local
# containers store (buildah; installed from Debian when missing) and saves the
# image as an OCI archive and a docker archive (the only one of the two that
# keeps HEALTHCHECK, which OCI's config has no field for):
#   target/image/switchboard-<version>-<arch>.oci.tar
#   target/image/switchboard-<version>-<arch>.docker.tar
# The release workflow (.github/workflows/release.yml) runs this script on
# native amd64 and arm64 runners and pushes what it built.
set -euo pipefail
cd "$(dirname "$0")/.."
PROFILE=${PROFILE:-dist}
UID_GID=10001:10001

if ! command -v buildah >/dev/null 2>&1; then
  echo "installing buildah from the machine's packages"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah >/dev/null
fi

TARGET_DIR=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
VERSION=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "switchboard"))')
REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)
# The release workflow passes its repository's URL; a local build takes the
# origin's when it is one, else the project's.
ORIGIN=$(git remote get-url origin 2>/dev/null || true)
case $ORIGIN in https://*) ;; *) ORIGIN="https://github.com/switchboard/switchboard" ;; esac
SOURCE=${SOURCE:-$ORIGIN}
ARCH=$(uname -m)
case $ARCH in x86_64) PLATFORM=amd64 ;; aarch64) PLATFORM=arm64 ;; *) PLATFORM=$ARCH ;; esac

echo "==> cargo build --profile $PROFILE"
cargo build --locked --profile "$PROFILE" --bin switchboard
case $PROFILE in dev) OUT=debug ;; *) OUT=$PROFILE ;; esac
BIN="$TARGET_DIR/$OUT/switchboard"

# The oldest glibc the binary runs on is the newest symbol version it asks
# for; the released binary promises 2.34 (docs/containers.md), so a build that
# asks for more (built against a newer glibc's headers) fails here.
MAX_GLIBC=${MAX_GLIBC:-2.34}
NEEDS_GLIBC=$(objdump -T "$BIN" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
echo "the binary needs glibc >= $NEEDS_GLIBC (promised: $MAX_GLIBC)"
if [ "$(printf '%s\n%s\n' "$NEEDS_GLIBC" "$MAX_GLIBC" | sort -V | tail -n 1)" != "$MAX_GLIBC" ]; then
  echo "the binary needs glibc $NEEDS_GLIBC, newer than the promised $MAX_GLIBC: build on an older distribution" >&2
  exit 1
fi

OUTDIR="$TARGET_DIR/image"
CONTEXT="$OUTDIR/context"
rm -rf "$CONTEXT"
# /data-sets: an empty folder of data sets that a mount replaces (docs/containers.md).
mkdir -p "$CONTEXT/rootfs/usr/local/bin" "$CONTEXT/rootfs/etc" "$CONTEXT/rootfs/data-sets" "$CONTEXT/data"
# Without its symbol table (9 MB of the release profile's 46): a panic still
# says where, only a RUST_BACKTRACE loses function names. The release workflow
# attaches this same file as the binary.
cp "$BIN" "$CONTEXT/rootfs/usr/local/bin/switchboard"
strip --strip-all "$CONTEXT/rootfs/usr/local/bin/switchboard"
# Every shared object the binary loads, at the path the loader looks for it
# (the loader itself is the line with no "=>").
ldd "$BIN" | awk '/=> \// {print $3} !/=>/ && $1 ~ /^\// {print $1}' | while read -r lib; do
  mkdir -p "$CONTEXT/rootfs$(dirname "$lib")"
  cp -L "$lib" "$CONTEXT/rootfs$lib"
done
# A name for the user and group, for tools that show them; the image runs by number.
echo "switchboard:x:${UID_GID%:*}:${UID_GID#*:}:switchboard:/data:/nonexistent" > "$CONTEXT/rootfs/etc/passwd"
echo "switchboard:x:${UID_GID#*:}:" > "$CONTEXT/rootfs/etc/group"
chmod -R u=rwX,go=rX "$CONTEXT/rootfs"

# /data is created by the chowned COPY itself: a COPY --chown onto a directory
# an earlier layer made would leave it root's.
cat > "$CONTEXT/Containerfile" <<EOF
FROM scratch
COPY rootfs/ /
COPY --chown=$UID_GID data/ /data/
ENV SWITCHBOARD_LISTEN=0.0.0.0:8080 \\
    SWITCHBOARD_DATABASE_URL=sqlite:///data/switchboard.db?mode=rwc \\
    SWITCHBOARD_SECRET_FILE=/data/secret.key \\
    SWITCHBOARD_DATA_SETS=/data-sets
USER $UID_GID
WORKDIR /data
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=2s --timeout=3s --start-period=10s --retries=3 CMD ["/usr/local/bin/switchboard", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/switchboard"]
CMD ["serve"]
LABEL org.opencontainers.image.title="switchboard" \\
      org.opencontainers.image.description="A persistent, spec-faithful support platform administration and partner-billing API server" \\
      org.opencontainers.image.version="$VERSION" \\
      org.opencontainers.image.revision="$REVISION" \\
      org.opencontainers.image.source="$SOURCE" \\
      org.opencontainers.image.licenses="MIT"
EOF

echo "==> buildah build switchboard:$VERSION ($PLATFORM, $PROFILE profile)"
buildah build --quiet --format docker --layers=false --timestamp 0 \
  -t "switchboard:$VERSION" -t "switchboard:latest" -f "$CONTEXT/Containerfile" "$CONTEXT" >/dev/null
mkdir -p "$OUTDIR"
for format in oci docker; do
  archive="$OUTDIR/switchboard-$VERSION-$PLATFORM.$format.tar"
  rm -f "$archive"
  buildah push --quiet "switchboard:$VERSION" "$format-archive:$archive:switchboard:$VERSION" >/dev/null
done
python3 - "$CONTEXT/rootfs" "$VERSION" "$PLATFORM" "$PROFILE" <<'PY'
import os, sys
root, version, platform, profile = sys.argv[1:]
total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
print(f"built switchboard:{version} and switchboard:latest ({platform}, {profile} profile): {total / 1e6:.1f} MB uncompressed")
PY
ls -l "$OUTDIR"/*.tar
