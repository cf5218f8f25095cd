# baremetal-krm container functions: one build target per KRM function.
#
#   docker build --target intent-validate -t baremetal-krm/intent-validate .
#
# The bundles are built inside the image (stage dist-build: npm ci, then the build), so the image
# does not depend on a dist/ of the host. Offline, with podman and no registry
# (scripts/build-images.sh does this):
#
#   podman build --isolation chroot --target intent-validate \
#     --build-arg BASE_IMAGE=localhost/baremetal-krm/node-base:local \
#     --build-arg DIST=context -t localhost/baremetal-krm/intent-validate:dev .
#
# DIST=context copies the bundles from the build context's dist/ (run `npm run build` first)
# instead of building; the base made by scripts/container-setup.sh has node and its libraries but
# no shell. A function is dist/<fn>.cjs (a launcher), dist/lib/<fn>.js (its code) and
# dist/lib/<fn>.cache (V8's code cache, made by the build with the node that builds: the same as
# the image's, so it is used), plus dist/lazy/ (modules some runs load).

# node:24-alpine, pinned by digest (a tag moves; a digest is the exact image). Update both together.
ARG NODE_IMAGE=docker.io/library/node:24-alpine@sha256:d32cdf619f63fe0471182d08996dd516c6275bb5fd31ae06e55a570bd9e1ad43
ARG BASE_IMAGE=${NODE_IMAGE}
# where the bundles come from: build (in the image) or context (dist/ beside this file)
ARG DIST=build
ARG VERSION=0.1.0

# --- the bundles, built from source -----------------------------------------------------------
FROM ${NODE_IMAGE} AS dist-build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/code-cache.cjs scripts/warm-up.yaml scripts/
COPY schemas schemas
COPY src src
COPY functions functions
RUN node scripts/build.mjs --no-typecheck --only=bmh-from-redfish,site-from-catalogue,phase-plan-expand,intent-validate && mkdir /out && cp dist/bmh-from-redfish.cjs dist/site-from-catalogue.cjs \
      dist/phase-plan-expand.cjs dist/intent-validate.cjs /out/ && cp -R dist/lib dist/lazy /out/

# --- or the bundles of the build context (offline) --------------------------------------------
FROM scratch AS dist-context
COPY dist/bmh-from-redfish.cjs dist/site-from-catalogue.cjs dist/phase-plan-expand.cjs dist/intent-validate.cjs /out/
COPY dist/lib/bmh-from-redfish.js dist/lib/bmh-from-redfish.cache dist/lib/site-from-catalogue.js dist/lib/site-from-catalogue.cache \
     dist/lib/phase-plan-expand.js dist/lib/phase-plan-expand.cache dist/lib/intent-validate.js dist/lib/intent-validate.cache /out/lib/
COPY dist/lazy /out/lazy/

FROM dist-${DIST} AS dist

# --- shared stage: everything common to the four functions ------------------------------------
FROM ${BASE_IMAGE} AS krm-fn
ARG VERSION
LABEL org.opencontainers.image.vendor="baremetal-krm" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/baremetal-krm/baremetal-krm" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.description="KRM function for bare-metal Kubernetes (kpt / kustomize container function)" \
      io.baremetal-krm.runtime="node"
ENV NODE_ENV=production
# nobody:nogroup; /tmp is world-writable in both bases, so functions may write temp files.
USER 65534:65534
WORKDIR /tmp
COPY --from=dist /out/lazy /usr/local/lib/baremetal-krm/lazy/

FROM krm-fn AS bmh-from-redfish
COPY --from=dist /out/bmh-from-redfish.cjs /usr/local/lib/baremetal-krm/bmh-from-redfish.cjs
COPY --from=dist /out/lib/bmh-from-redfish.js /out/lib/bmh-from-redfish.cache /usr/local/lib/baremetal-krm/lib/
LABEL org.opencontainers.image.title="bmh-from-redfish" \
      io.baremetal-krm.function="bmh-from-redfish"
ENTRYPOINT ["node", "/usr/local/lib/baremetal-krm/bmh-from-redfish.cjs"]

FROM krm-fn AS site-from-catalogue
COPY --from=dist /out/site-from-catalogue.cjs /usr/local/lib/baremetal-krm/site-from-catalogue.cjs
COPY --from=dist /out/lib/site-from-catalogue.js /out/lib/site-from-catalogue.cache /usr/local/lib/baremetal-krm/lib/
LABEL org.opencontainers.image.title="site-from-catalogue" \
      io.baremetal-krm.function="site-from-catalogue"
ENTRYPOINT ["node", "/usr/local/lib/baremetal-krm/site-from-catalogue.cjs"]

FROM krm-fn AS phase-plan-expand
COPY --from=dist /out/phase-plan-expand.cjs /usr/local/lib/baremetal-krm/phase-plan-expand.cjs
COPY --from=dist /out/lib/phase-plan-expand.js /out/lib/phase-plan-expand.cache /usr/local/lib/baremetal-krm/lib/
LABEL org.opencontainers.image.title="phase-plan-expand" \
      io.baremetal-krm.function="phase-plan-expand"
ENTRYPOINT ["node", "/usr/local/lib/baremetal-krm/phase-plan-expand.cjs"]

FROM krm-fn AS intent-validate
COPY --from=dist /out/intent-validate.cjs /usr/local/lib/baremetal-krm/intent-validate.cjs
COPY --from=dist /out/lib/intent-validate.js /out/lib/intent-validate.cache /usr/local/lib/baremetal-krm/lib/
LABEL org.opencontainers.image.title="intent-validate" \
      io.baremetal-krm.function="intent-validate"
ENTRYPOINT ["node", "/usr/local/lib/baremetal-krm/intent-validate.cjs"]
