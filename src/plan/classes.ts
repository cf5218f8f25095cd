/**
 * The impact classes of `baremetal-krm plan`, most severe first: what a change does to the
 * fleet once Flux applies it, from the Bare Metal Operator's and Flux's documented behaviour
 * (README.md cites the rules). Their order ranks the impacts of one object: its class is the
 * first of its impacts in this table.
 */
import type { CiRule } from '../cli/ci-finding.js';

export const IMPACT_CLASSES = [
  'deprovision',
  'cascade',
  'reprovision',
  'power-off',
  'deletion',
  'management-change',
  'credential-rotation',
  'consumer-change',
  'reboot',
  'provision',
  'ordering-change',
  'power-on',
  'next-provisioning',
  'register',
  'config-change',
  'no-runtime-effect',
] as const;
export type ImpactClass = (typeof IMPACT_CLASSES)[number];

const RULES: Record<ImpactClass, Omit<CiRule, 'id'>> = {
  deprovision: {
    severity: 'error',
    short: 'a host is deprovisioned: its image is wiped and its disks cleaned',
    full: 'A BareMetalHost removed (pruned by Flux, or in a pruned Namespace) or whose image is removed: the Bare Metal Operator deprovisions a provisioned host (Ironic cleans its disks unless automatedCleaningMode is disabled), powers it off and forgets it.',
    help: 'If you mean it, annotate the object (on the base side for a removal) with baremetal-krm.dev/plan-allow: deprovision; to take a host out of management without touching it, set the baremetalhost.metal3.io/detached annotation first.',
  },
  cascade: {
    severity: 'error',
    short: 'a Namespace is deleted with everything in it',
    full: 'A Namespace removed from a pruning Flux Kustomization: Kubernetes deletes every object in it, BareMetalHosts included (each of them is deprovisioned).',
    help: 'Move what must survive out of the Namespace first, or annotate the Namespace with baremetal-krm.dev/plan-allow: cascade.',
  },
  reprovision: {
    severity: 'error',
    short: 'a host is deprovisioned and provisioned again',
    full: "The image URL or customDeploy method of a BareMetalHost changed: the Bare Metal Operator deprovisions the provisioned host (disks cleaned) and provisions the new image; the host's workloads are gone meanwhile.",
    help: 'Roll hosts one by one (drain first), or annotate the host with baremetal-krm.dev/plan-allow: reprovision.',
  },
  'power-off': {
    severity: 'error',
    short: 'a host is powered off',
    full: 'online: false, a reboot.metal3.io/<key> annotation (held off until removed), or the removal of a host that has no image or is externally provisioned (powered off before it is deleted).',
    help: 'Drain the host first, or annotate it with baremetal-krm.dev/plan-allow: power-off.',
  },
  deletion: {
    severity: 'warning',
    short: 'an object is deleted from the cluster',
    full: 'An object removed from the path of a Flux Kustomization with prune: true, or a pruning Kustomization removed (Flux garbage-collects everything it applied).',
    help: 'Keep the object, set kustomize.toolkit.fluxcd.io/prune: disabled on it before removing it, or annotate it with baremetal-krm.dev/plan-allow: deletion.',
  },
  'management-change': {
    severity: 'warning',
    short: 'how the operator reaches or manages a host changes',
    full: 'bmc.address, bmc.credentialsName, bootMACAddress, disableCertificateVerification, externallyProvisioned, or the detached/paused annotations changed: the Bare Metal Operator registers the host again (or stops managing it); wrong values leave it in registration error.',
    help: 'Check the BMC address and credentials against the machine; annotate with baremetal-krm.dev/plan-allow: management-change.',
  },
  'credential-rotation': {
    severity: 'warning',
    short: 'Secret data changes (values are never shown)',
    full: 'The data of a Secret changed. BMC credentials make the Bare Metal Operator register the host again with the new ones; other Secrets reach their users when they next read them.',
    help: 'Make sure the new credentials are valid where they are used; annotate the Secret with baremetal-krm.dev/plan-allow: credential-rotation.',
  },
  'consumer-change': {
    severity: 'warning',
    short: 'a host is handed to another consumer or released',
    full: 'spec.consumerRef of a BareMetalHost changed or was removed: the host belongs to another Machine (or none), which may provision or release it.',
    help: 'consumerRef is normally written by Cluster API Provider Metal3, not Git; annotate with baremetal-krm.dev/plan-allow: consumer-change if you mean it.',
  },
  reboot: {
    severity: 'warning',
    short: 'a host is rebooted',
    full: 'A reboot.metal3.io annotation was added: the Bare Metal Operator power-cycles the host once and removes the annotation.',
    help: 'Drain the host first, or annotate it with baremetal-krm.dev/plan-allow: reboot.',
  },
  provision: {
    severity: 'warning',
    short: 'an image is written to a host',
    full: 'A new BareMetalHost with an image and online: true, or an image set on a host that had none: the Bare Metal Operator registers and inspects it, then writes the image to its root disk.',
    help: 'Check rootDeviceHints and the image; annotate with baremetal-krm.dev/plan-allow: provision.',
  },
  'ordering-change': {
    severity: 'warning',
    short: 'what Flux applies, where or in which order changes',
    full: 'dependsOn, path, sourceRef or targetNamespace of a Flux Kustomization changed: Flux applies other manifests, into another namespace (pruning them from the old one), or in another order.',
    help: 'Check the dependency chain; annotate with baremetal-krm.dev/plan-allow: ordering-change.',
  },
  'power-on': {
    severity: 'info',
    short: 'a host is powered on',
    full: 'online: true (it was false), or a reboot.metal3.io/<key> annotation removed.',
    help: 'Nothing to do unless the host must stay off.',
  },
  'next-provisioning': {
    severity: 'info',
    short: 'takes effect only at the next provisioning of the host',
    full: 'Settings the Bare Metal Operator reads only when it prepares or provisions a host: rootDeviceHints, raid, firmware, bootMode, userData, networkData, metaData, the image checksum or format, HostFirmwareSettings and HostFirmwareComponents (or at the next reboot under a HostUpdatePolicy onReboot). A provisioned host keeps running as it is.',
    help: 'To apply them now, deprovision and provision the host again.',
  },
  register: {
    severity: 'info',
    short: 'a new host is registered and inspected (no image written)',
    full: 'A new BareMetalHost without an image (or externally provisioned): the Bare Metal Operator checks its BMC and inspects it (inspection boots an agent), or adopts it as it is.',
    help: 'Nothing to do.',
  },
  'config-change': {
    severity: 'info',
    short: 'configuration changes',
    full: 'Any other object created or changed: Flux applies it.',
    help: 'Nothing to do.',
  },
  'no-runtime-effect': {
    severity: 'info',
    short: 'nothing changes in the cluster',
    full: 'Formatting, status, local-config documents, or objects Flux does not apply or prune (prune: false, prune or reconcile disabled).',
    help: 'Nothing to do.',
  },
};

/** The classes as CI rules (id, severity, descriptions, help). */
export const PLAN_RULES: readonly CiRule[] = IMPACT_CLASSES.map((id) => ({ id, ...RULES[id] }));

export function rank(c: ImpactClass): number {
  return IMPACT_CLASSES.indexOf(c);
}

export function isImpactClass(s: string): s is ImpactClass {
  return (IMPACT_CLASSES as readonly string[]).includes(s);
}
