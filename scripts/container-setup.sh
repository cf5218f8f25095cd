#!/usr/bin/env bash
# Prepare this machine to build and run the baremetal-krm container functions
# with podman, without any registry access.
#
#   1. installs podman + runc from Debian if either is missing;
#   2. configures podman for this sandbox (runc, cgroupfs, low ulimits, vfs);
#   3. creates the local base image localhost/baremetal-krm/node-base:local
#      from this machine's own node binary and the shared libraries it needs
#      (nothing is pulled).
#
# Idempotent: safe to run repeatedly (as root, e.g. in CI); when everything is
# already in place it only checks and exits in well under a second.
#
# Environment:
#   BASE_IMAGE_NAME   name of the base image (default localhost/baremetal-krm/node-base:local)
#   NODE_BIN          node binary to package (default: $(command -v node))
#   FORCE_BASE=1      rebuild the base image even if it is up to date
set -euo pipefail

BASE_IMAGE_NAME="${BASE_IMAGE_NAME:-localhost/baremetal-krm/node-base:local}"
CONF_DIR=/etc/containers
ENGINE_DROPIN="$CONF_DIR/containers.conf.d/50-baremetal-krm.conf"
STORAGE_CONF="$CONF_DIR/storage.conf"

log() { printf '[container-setup] %s\n' "$*" >&2; }
die() { printf '[container-setup] ERROR: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (rootful podman; the config lives in $CONF_DIR)"

# --- 1. packages -------------------------------------------------------------
if command -v podman >/dev/null 2>&1 && command -v runc >/dev/null 2>&1; then
  log "podman $(podman --version | awk '{print $3}') and runc already installed"
else
  command -v apt-get >/dev/null 2>&1 || die "podman/runc missing and apt-get not available"
  log "installing podman + runc (apt-get update && apt-get install -y podman runc)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq podman runc >/dev/null
  log "installed podman $(podman --version | awk '{print $3}')"
fi

# --- 2. configuration --------------------------------------------------------
# Engine settings go into a drop-in (read after containers.conf, overriding it),
# so an existing /etc/containers/containers.conf is never touched.
#  - runc: crun/systemd are not usable in this sandbox;
#  - cgroupfs: there is no systemd to manage cgroups;
#  - ulimits: podman's default nofile=1048576 exceeds the hard limit here and
#    runc fails with "error setting rlimit type 7: operation not permitted".
ENGINE_CONF='# Written by baremetal-krm scripts/container-setup.sh
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
'
mkdir -p "$(dirname "$ENGINE_DROPIN")"
if [ -f "$ENGINE_DROPIN" ] && [ "$(cat "$ENGINE_DROPIN")" = "$(printf '%s' "$ENGINE_CONF")" ]; then
  log "engine config up to date ($ENGINE_DROPIN)"
else
  printf '%s' "$ENGINE_CONF" >"$ENGINE_DROPIN"
  log "wrote $ENGINE_DROPIN (runtime=runc, cgroup_manager=cgroupfs, ulimits nofile/nproc=1024)"
fi

# Storage: vfs works everywhere (no overlay-on-overlay / fuse needed).
# storage.conf has no drop-in directory: write it whole if absent, otherwise
# only set driver = "vfs" and keep every other setting.
if [ ! -f "$STORAGE_CONF" ]; then
  cat >"$STORAGE_CONF" <<'EOF'
# Written by baremetal-krm scripts/container-setup.sh
[storage]
driver = "vfs"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"
EOF
  log "wrote $STORAGE_CONF (driver=vfs)"
elif grep -Eq '^[[:space:]]*driver[[:space:]]*=[[:space:]]*"vfs"' "$STORAGE_CONF"; then
  log "storage driver already vfs ($STORAGE_CONF)"
else
  cp -p "$STORAGE_CONF" "$STORAGE_CONF.bak"
  if ! grep -Eq '^[[:space:]]*\[storage\][[:space:]]*$' "$STORAGE_CONF"; then
    # no [storage] table: put one first (keys after a sub-table would land in it)
    { printf '[storage]\ndriver = "vfs"\n\n'; cat "$STORAGE_CONF.bak"; } >"$STORAGE_CONF"
  elif grep -Eq '^[[:space:]]*driver[[:space:]]*=' "$STORAGE_CONF"; then
    sed -i -E 's/^[[:space:]]*driver[[:space:]]*=.*/driver = "vfs"/' "$STORAGE_CONF"
  else
    sed -i -E '0,/^[[:space:]]*\[storage\][[:space:]]*$/s//[storage]\ndriver = "vfs"/' "$STORAGE_CONF"
  fi
  # overlay-only option that vfs rejects ("vfs driver does not support vfs.mount_program")
  sed -i -E 's/^([[:space:]]*mount_program[[:space:]]*=)/# disabled for vfs by container-setup.sh: \1/' "$STORAGE_CONF"
  # podman refuses a storage.conf without these two
  for kv in 'graphroot = "/var/lib/containers/storage"' 'runroot = "/run/containers/storage"'; do
    grep -Eq "^[[:space:]]*${kv%% *}[[:space:]]*=" "$STORAGE_CONF" ||
      sed -i -E "0,/^driver = \"vfs\"\$/s||driver = \"vfs\"\n$kv|" "$STORAGE_CONF"
  done
  log "set driver = \"vfs\" in $STORAGE_CONF (backup: $STORAGE_CONF.bak)"
fi

# A store first initialised with another driver (e.g. by a bare `podman info`
# before this script ran) makes podman refuse the vfs setting. Reset it only
# when it holds no images or containers; otherwise tell the operator.
driver_now="$(podman info --format '{{.Store.GraphDriverName}}' 2>/dev/null || true)"
if [ "$driver_now" != "vfs" ]; then
  n_img="$(podman images -qa 2>/dev/null | wc -l)"
  n_ctr="$(podman ps -aq 2>/dev/null | wc -l)"
  if [ "$n_img" -eq 0 ] && [ "$n_ctr" -eq 0 ]; then
    log "container store was initialised with driver '${driver_now:-?}' and is empty: 'podman system reset' to switch to vfs"
    podman system reset -f >/dev/null 2>&1 || true
    driver_now="$(podman info --format '{{.Store.GraphDriverName}}')"
  fi
  [ "$driver_now" = "vfs" ] ||
    die "podman still uses storage driver '$driver_now' and the store is not empty; run 'podman system reset' (deletes all images) and re-run"
fi

# --- 3. base image -----------------------------------------------------------
NODE_BIN="$(readlink -f "${NODE_BIN:-$(command -v node || true)}")"
[ -x "$NODE_BIN" ] || die "node not found (set NODE_BIN)"
node_version="$("$NODE_BIN" --version)"
# Identifies the exact host binary: rebuild the image when node is upgraded.
node_id="$node_version $(stat -c '%s %Y' "$NODE_BIN")"
label_key=io.baremetal-krm.node-id

if [ "${FORCE_BASE:-0}" != 1 ] && podman image exists "$BASE_IMAGE_NAME" &&
   [ "$(podman image inspect --format "{{index .Config.Labels \"$label_key\"}}" "$BASE_IMAGE_NAME" 2>/dev/null)" = "$node_id" ]; then
  log "base image $BASE_IMAGE_NAME up to date (node $node_version)"
  exit 0
fi

log "creating base image $BASE_IMAGE_NAME from $NODE_BIN ($node_version)"
t0=$(date +%s.%N)
stage="$(mktemp -d /tmp/baremetal-krm-rootfs.XXXXXX)"
trap 'rm -rf "$stage"' EXIT
root="$stage/rootfs"
mkdir -p "$root/usr/local/bin" "$root/etc" "$root/tmp"
chmod 0755 "$root" "$root/usr" "$root/usr/local" "$root/usr/local/bin" "$root/etc"
chmod 1777 "$root/tmp"
cp "$NODE_BIN" "$root/usr/local/bin/node"
# Every shared library node links against, plus the ELF interpreter, at the
# same absolute paths as on the host (that is where the loader looks).
libs="$(ldd "$NODE_BIN" | grep -oE '/[^ ]+' | sort -u)"
[ -n "$libs" ] || die "ldd found no libraries for $NODE_BIN"
for lib in $libs; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
# nobody/nogroup: Dockerfile uses USER 65534:65534; kustomize runs `--user nobody`
# (resolved through the image's /etc/passwd).
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
nobody:x:65534:
EOF
chmod 0644 "$root/etc/passwd" "$root/etc/group"
# smoke test outside any container
env -i PATH="$PATH" chroot "$root" /usr/local/bin/node -e 'process.exit(0)' || die "packaged node does not start in its rootfs"

podman rmi -f "$BASE_IMAGE_NAME" >/dev/null 2>&1 || true
tar -C "$root" --numeric-owner --owner=0 --group=0 -cf - . |
  podman import --quiet \
    --change 'ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'WORKDIR /tmp' \
    --change 'CMD ["node"]' \
    --change "LABEL $label_key=\"$node_id\"" \
    --change "LABEL org.opencontainers.image.title=\"baremetal-krm node base (local)\"" \
    --change "LABEL org.opencontainers.image.description=\"node $node_version + its shared libraries, imported from the build host\"" \
    - "$BASE_IMAGE_NAME" >/dev/null
size="$(podman image inspect --format '{{.Size}}' "$BASE_IMAGE_NAME")"
t1=$(date +%s.%N)
log "created $BASE_IMAGE_NAME ($((size / 1000000)) MB) in $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")s"
