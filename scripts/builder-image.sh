#!/usr/bin/env bash
# A local builder image for the Dockerfile's dist-build stage, made without any registry:
# the local node base (scripts/container-setup.sh) plus this machine's npm, a static busybox
# for the shell that RUN needs, and the CA bundle node trusts here (npm ci inside the build
# reaches the npm registry through the same TLS path as the host).
#
#   scripts/builder-image.sh        -> localhost/baremetal-krm/node-builder:local
#
# Needs busybox-static (Debian) and npm. Idempotent: rebuilt only when its inputs change.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE=localhost/baremetal-krm/node-base:local
BUILDER="${BUILDER_IMAGE_NAME:-localhost/baremetal-krm/node-builder:local}"
log() { printf '[builder-image] %s\n' "$*" >&2; }

BASE_IMAGE_NAME="$BASE" bash "$REPO/scripts/container-setup.sh"
busybox="$(command -v busybox || true)"
[ -n "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
  { log "a static busybox is needed (apt-get install busybox-static)"; exit 1; }
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
[ -f "$ca" ] || { log "no CA bundle at $ca"; exit 1; }

ctx="$(mktemp -d /tmp/baremetal-krm-builder.XXXXXX)"
trap 'rm -rf "$ctx"' EXIT
cp "$busybox" "$ctx/busybox"
cp -r "$npm_dir" "$ctx/npm"
cp "$ca" "$ctx/ca-certificates.crt"
cat >"$ctx/Containerfile" <<'CF'
FROM localhost/baremetal-krm/node-base:local
COPY busybox /bin/busybox
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN ["/bin/busybox", "--install", "-s", "/bin"]
RUN ["/bin/sh", "-c", "mkdir -p /usr/bin && ln -sf /bin/busybox /usr/bin/env && ln -s /usr/local/lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm"]
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CF
inputs="$( { podman image inspect --format '{{.Id}}' "$BASE"; sha256sum "$ctx/busybox" "$ctx/ca-certificates.crt" "$ctx/Containerfile" | cut -d' ' -f1; cat "$ctx/npm/package.json" | sha256sum; } | sha256sum | cut -c1-32)"
if podman image exists "$BUILDER" && [ "$(podman image inspect --format '{{index .Config.Labels "io.baremetal-krm.inputs"}}' "$BUILDER")" = "$inputs" ]; then
  log "up to date: $BUILDER"
  exit 0
fi
podman build --quiet --isolation chroot --pull=never --label "io.baremetal-krm.inputs=$inputs" -f "$ctx/Containerfile" -t "$BUILDER" "$ctx" >/dev/null
log "built $BUILDER"
