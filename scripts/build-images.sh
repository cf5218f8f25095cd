#!/usr/bin/env bash
# Build the container-function images with podman, fully offline:
#
#   scripts/build-images.sh                  # all four functions
#   scripts/build-images.sh intent-validate  # just some
#
# Produces localhost/baremetal-krm/<fn>:dev from the Dockerfile target <fn>,
# on top of the local base image made by scripts/container-setup.sh (run first,
# it is a no-op when everything is in place). A function whose dist/<fn>.cjs
# bundle does not exist is skipped with a message (run `npm run build` first);
# its dist/lib/<fn>.{js,cache} and dist/lazy/ go into the image with it.
#
# Environment:
#   BASE_IMAGE     base image (default localhost/baremetal-krm/node-base:local;
#                  any other value is used as is and may be pulled)
#   IMAGE_PREFIX   default localhost/baremetal-krm
#   TAG            default dev
#   BUILD_CONTEXT  directory holding dist/ (default: the repo root)
#   FORCE=1        run podman build even when the image's inputs are unchanged
#   PUBLIC_NAME    also tag each image as the name the examples' Kptfiles use,
#                  ghcr.io/baremetal-krm/<fn>:v<version> (default 1; 0 to skip)
#   FROM_SOURCE=1  build the bundles inside the image (the Dockerfile's dist-build stage: npm ci
#                  and the build, with the local builder image of scripts/builder-image.sh and
#                  network access to the npm registry) instead of copying dist/ from the context
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOCAL_BASE=localhost/baremetal-krm/node-base:local
BASE_IMAGE="${BASE_IMAGE:-$LOCAL_BASE}"
IMAGE_PREFIX="${IMAGE_PREFIX:-localhost/baremetal-krm}"
TAG="${TAG:-dev}"
BUILD_CONTEXT="$(cd "${BUILD_CONTEXT:-$REPO}" && pwd)"
ALL_FNS=(bmh-from-redfish site-from-catalogue phase-plan-expand intent-validate)

log() { printf '[build-images] %s\n' "$*" >&2; }
now() { date +%s.%N; }
secs() { awk "BEGIN{printf \"%.1f\", $2 - $1}"; }

fns=("$@")
[ ${#fns[@]} -gt 0 ] || fns=("${ALL_FNS[@]}")
for fn in "${fns[@]}"; do
  case " ${ALL_FNS[*]} " in *" $fn "*) ;; *) log "unknown function '$fn' (known: ${ALL_FNS[*]})"; exit 2 ;; esac
done

if [ "$BASE_IMAGE" = "$LOCAL_BASE" ]; then
  BASE_IMAGE_NAME="$LOCAL_BASE" bash "$REPO/scripts/container-setup.sh"
  pull=(--pull=never) # it is local; never try a registry for it
else
  command -v podman >/dev/null 2>&1 || bash "$REPO/scripts/container-setup.sh"
  pull=()
fi

VERSION="$(node -p "require('$REPO/package.json').version")"
dist_args=(--build-arg DIST=context)
if [ "${FROM_SOURCE:-0}" = 1 ]; then
  bash "$REPO/scripts/builder-image.sh"
  dist_args=(--build-arg DIST=build --build-arg NODE_IMAGE=localhost/baremetal-krm/node-builder:local --network host)
fi

built=0 skipped=0 uptodate=0
STAMP_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/baremetal-krm/images"
mkdir -p "$STAMP_DIR"
t_all=$(now)
for fn in "${fns[@]}"; do
  bundle="$BUILD_CONTEXT/dist/$fn.cjs"
  if [ ! -f "$bundle" ] && [ "${FROM_SOURCE:-0}" != 1 ]; then
    log "skip $fn: $bundle not found (run 'npm run build')"
    skipped=$((skipped + 1))
    continue
  fi
  image="$IMAGE_PREFIX/$fn:$TAG"
  t0=$(now)
  # Fingerprint of everything the image is made of, kept with the image ID in
  # a stamp file (not a --label: podman's layer cache ignores --label and
  # would hand back a stale one). Same inputs and same image => nothing to do,
  # which saves podman's ~1 s cache walk per image on an unchanged rebuild.
  base_id="$(podman image inspect --format '{{.Id}}' "$BASE_IMAGE" 2>/dev/null || echo "$BASE_IMAGE")"
  # (the bundle is dist/<fn>.cjs, its code and code cache in dist/lib/, and dist/lazy/)
  inputs="$( { sha256sum "$REPO/Dockerfile" | cut -d' ' -f1; [ "${FROM_SOURCE:-0}" = 1 ] || { sha256sum "$bundle" "$BUILD_CONTEXT/dist/lib/$fn.js" "$BUILD_CONTEXT/dist/lib/$fn.cache"; find "$BUILD_CONTEXT/dist/lazy" -type f -print0 | sort -z | xargs -0 sha256sum; }; echo "$base_id $image $VERSION ${dist_args[*]}"; } | sha256sum | cut -c1-32)"
  old_id="$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  stamp="$STAMP_DIR/$(printf '%s' "$image" | tr '/:' '__')"
  # (from source: the inputs are the whole tree, so always build; podman's layer cache still applies)
  if [ "${FORCE:-0}" != 1 ] && [ "${FROM_SOURCE:-0}" != 1 ] && [ -n "$old_id" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$old_id $inputs" ]; then
    log "up to date: $image"
    uptodate=$((uptodate + 1))
    continue
  fi
  podman build --quiet --layers --isolation chroot "${pull[@]}" \
    --build-arg BASE_IMAGE="$BASE_IMAGE" --build-arg VERSION="$VERSION" "${dist_args[@]}" \
    --target "$fn" -t "$image" \
    -f "$REPO/Dockerfile" "$BUILD_CONTEXT" >/dev/null
  t1=$(now)
  new_id="$(podman image inspect --format '{{.Id}}' "$image")"
  printf '%s %s' "$new_id" "$inputs" >"$stamp"
  # vfs stores every layer as a full copy (~100 MB): drop the image this tag
  # pointed at before, if nothing else uses it.
  if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then
    podman rmi "$old_id" >/dev/null 2>&1 || true
  fi
  size="$(podman image inspect --format '{{.Size}}' "$image")"
  log "built $image in $(secs "$t0" "$t1")s ($((size / 1000000)) MB)"
  built=$((built + 1))
done
# the name the examples' Kptfiles and function configs use, so they run here as committed
if [ "${PUBLIC_NAME:-1}" = 1 ]; then
  for fn in "${fns[@]}"; do
    podman image exists "$IMAGE_PREFIX/$fn:$TAG" && podman tag "$IMAGE_PREFIX/$fn:$TAG" "ghcr.io/baremetal-krm/$fn:v$VERSION"
  done
fi
log "done: $built built, $uptodate up to date, $skipped skipped in $(secs "$t_all" "$(now)")s"
