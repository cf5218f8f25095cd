# baremetal-krm container functions: one build target per KRM function.
#
#   docker build --target intent-validate -t baremetal-krm/intent-validate .
#   podman build --isolation chroot --target intent-validate \
#     --build-arg BASE_IMAGE=localhost/baremetal-krm/node-base:local \
#     -t localhost/baremetal-krm/intent-validate:dev .       (scripts/build-images.sh)
#
# The build context is only dist/ (see .dockerignore): run `npm run build` first.
# No RUN instructions on purpose: the offline base image built by
# scripts/container-setup.sh has node and its libraries but no shell.

ARG BASE_IMAGE=node:24-alpine

# Shared stage: everything common to the four functions, so each target adds
# only its single bundle layer on top.
FROM ${BASE_IMAGE} AS krm-fn
LABEL org.opencontainers.image.vendor="baremetal-krm" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.description="KRM function for bare-metal Kubernetes (kpt / kustomize container function)" \
      io.baremetal-krm.runtime="node"
ENV NODE_ENV=production
# nobody:nogroup; /tmp is world-writable in both bases, so functions may write temp files.
USER 65534:65534
WORKDIR /tmp

FROM krm-fn AS bmh-from-redfish
COPY dist/bmh-from-redfish.cjs /usr/local/lib/baremetal-krm/bmh-from-redfish.cjs
LABEL org.opencontainers.image.title="bmh-from-redfish" \
      io.baremetal-krm.function="bmh-from-redfish"
ENTRYPOINT ["node", "/usr/local/lib/baremetal-krm/bmh-from-redfish.cjs"]

FROM krm-fn AS site-from-catalogue
COPY dist/site-from-catalogue.cjs /usr/local/lib/baremetal-krm/site-from-catalogue.cjs
LABEL org.opencontainers.image.title="site-from-catalogue" \
      io.baremetal-krm.function="site-from-catalogue"
ENTRYPOINT ["node", "/usr/local/lib/baremetal-krm/site-from-catalogue.cjs"]

FROM krm-fn AS phase-plan-expand
COPY dist/phase-plan-expand.cjs /usr/local/lib/baremetal-krm/phase-plan-expand.cjs
LABEL org.opencontainers.image.title="phase-plan-expand" \
      io.baremetal-krm.function="phase-plan-expand"
ENTRYPOINT ["node", "/usr/local/lib/baremetal-krm/phase-plan-expand.cjs"]

FROM krm-fn AS intent-validate
COPY dist/intent-validate.cjs /usr/local/lib/baremetal-krm/intent-validate.cjs
LABEL org.opencontainers.image.title="intent-validate" \
      io.baremetal-krm.function="intent-validate"
ENTRYPOINT ["node", "/usr/local/lib/baremetal-krm/intent-validate.cjs"]
