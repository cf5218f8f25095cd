/**
 * BareMetalHost rules: what the Bare Metal Operator does when a host is added, removed or
 * changed (metal3-io/baremetal-operator host_state_machine.go and docs/api.md; README.md has
 * the table). Values shown are redacted (BMC addresses without credentials); Secrets are named,
 * never read.
 */
import { isRecord, nonEmptyText, type KubeObject } from '../krm/index.js';
import { redactBmcAddress } from '../model/bmc.js';
import { redactString } from '../secrets/redact.js';
import type { ImpactClass } from './classes.js';
import { pathText, under } from './diff.js';

export interface Found {
  class: ImpactClass;
  reason: string;
}

export const DETACHED = 'baremetalhost.metal3.io/detached';
export const PAUSED = 'baremetalhost.metal3.io/paused';
const REBOOT = 'reboot.metal3.io';

/** Spec fields read only when the host is prepared or provisioned. */
const NEXT_PROVISIONING = [
  'rootDeviceHints',
  'raid',
  'firmware',
  'bootMode',
  'userData',
  'networkData',
  'metaData',
  'preprovisioningNetworkDataName',
  'hardwareProfile',
  'architecture',
];
const MANAGEMENT = ['bmc', 'bootMACAddress'];

function imageUrl(o: KubeObject): string | undefined {
  const img = o.get('spec.image');
  return isRecord(img) ? nonEmptyText(img.url) : undefined;
}

function shown(v: string | undefined): string {
  return v === undefined ? '(none)' : redactString(v).text;
}

function cleaning(o: KubeObject): string {
  return o.get('spec.automatedCleaningMode') === 'disabled' ? 'automatedCleaningMode: disabled, disks not cleaned' : 'disks cleaned';
}

export function hostAdded(o: KubeObject): Found[] {
  const url = imageUrl(o);
  if (o.get('spec.externallyProvisioned') === true)
    return [
      {
        class: 'register',
        reason: 'new host, externallyProvisioned: BMO adopts it as it runs and manages its power only; nothing is written',
      },
    ];
  if (!isRecord(o.get('spec.bmc')) || !nonEmptyText(o.get('spec.bmc.address')))
    return [{ class: 'register', reason: 'new host without BMC address: BMO keeps it unmanaged' }];
  if (url && o.get('spec.online') === true)
    return [{ class: 'provision', reason: `new host: BMO registers and inspects it, then writes image ${shown(url)} to its root disk` }];
  if (url)
    return [{ class: 'register', reason: `new host: BMO registers and inspects it; image ${shown(url)} is written once online: true` }];
  return [
    { class: 'register', reason: 'new host without image: BMO registers and inspects it (inspection boots an agent); nothing is written' },
  ];
}

/** A host that is deleted from the cluster (the caller decided it is: pruned or garbage-collected). */
export function hostDeleted(o: KubeObject, why: string): Found[] {
  if (o.annotations[DETACHED] !== undefined)
    return [{ class: 'deletion', reason: `removed (${why}) while detached: BMO deletes it without powering off or deprovisioning` }];
  if (o.get('spec.externallyProvisioned') === true)
    return [
      {
        class: 'power-off',
        reason: `removed (${why}): externally provisioned, so BMO powers it off before deleting it (no deprovisioning)`,
      },
    ];
  if (imageUrl(o) || isRecord(o.get('spec.customDeploy')))
    return [
      { class: 'deprovision', reason: `removed (${why}): BMO deprovisions the host (image wiped, ${cleaning(o)}) and powers it off` },
    ];
  return [{ class: 'power-off', reason: `removed (${why}): a host without image is powered off before BMO deletes it` }];
}

function imageImpacts(before: KubeObject, after: KubeObject, changed: string[][]): Found[] {
  const out: Found[] = [];
  const was = imageUrl(before);
  const now = imageUrl(after);
  if (was !== now) {
    if (was && !now)
      out.push({ class: 'deprovision', reason: `image removed: BMO deprovisions the host (image wiped, ${cleaning(after)})` });
    else if (!was && now)
      out.push(
        after.get('spec.online') === true
          ? { class: 'provision', reason: `image set: BMO provisions the host with ${shown(now)}` }
          : { class: 'next-provisioning', reason: `image set to ${shown(now)}: written once online: true` },
      );
    else
      out.push({
        class: 'reprovision',
        reason: `image changed ${shown(was)} -> ${shown(now)}: BMO deprovisions (${cleaning(after)}) and provisions the new image`,
      });
  } else if (changed.some((p) => under(p, 'spec', 'image')))
    out.push({ class: 'next-provisioning', reason: 'image checksum or format changed (same URL): used at the next provisioning' });
  if (changed.some((p) => under(p, 'spec', 'customDeploy'))) {
    const m = (o: KubeObject): string | undefined => nonEmptyText(o.get('spec.customDeploy.method'));
    if (m(before) && m(before) !== m(after))
      out.push({
        class: 'reprovision',
        reason: `customDeploy method changed ${m(before)} -> ${m(after) ?? '(none)'}: BMO deprovisions and deploys again`,
      });
  }
  return out;
}

function powerImpacts(before: KubeObject, after: KubeObject): Found[] {
  const out: Found[] = [];
  const was = before.get('spec.online') === true;
  const now = after.get('spec.online') === true;
  if (was && !now) out.push({ class: 'power-off', reason: 'online: false: BMO powers the host off' });
  if (!was && now) out.push({ class: 'power-on', reason: 'online: true: BMO powers the host on' });
  const keys = (o: KubeObject): string[] => Object.keys(o.annotations).filter((k) => k === REBOOT || k.startsWith(`${REBOOT}/`));
  const had = new Set(keys(before));
  for (const k of keys(after))
    if (!had.has(k))
      out.push(
        k === REBOOT
          ? { class: 'reboot', reason: `annotation ${REBOOT} added: BMO power-cycles the host once` }
          : {
              class: 'power-off',
              reason: `annotation ${k} added: BMO powers the host off and keeps it off until the annotation is removed`,
            },
      );
  const has = new Set(keys(after));
  for (const k of had)
    if (k !== REBOOT && !has.has(k)) out.push({ class: 'power-on', reason: `annotation ${k} removed: BMO powers the host on again` });
  return out;
}

function managementImpacts(before: KubeObject, after: KubeObject, changed: string[][]): Found[] {
  const out: Found[] = [];
  const fields = changed.filter((p) => p[0] === 'spec' && MANAGEMENT.includes(p[1]!)).map(pathText);
  if (fields.length) {
    const addr = (o: KubeObject): string => {
      const a = nonEmptyText(o.get('spec.bmc.address'));
      return a ? redactBmcAddress(a) : '(none)';
    };
    const detail = fields.includes('spec.bmc.address') ? ` (BMC ${addr(before)} -> ${addr(after)})` : '';
    out.push({
      class: 'management-change',
      reason: `${fields.join(', ')} changed${detail}: BMO registers the host again; wrong values leave it in registration error`,
    });
  }
  if (changed.some((p) => under(p, 'spec', 'externallyProvisioned'))) {
    const now = after.get('spec.externallyProvisioned') === true;
    if (now)
      out.push({
        class: 'management-change',
        reason: 'externallyProvisioned: true: BMO stops provisioning the host and manages its power only',
      });
    else if (!imageUrl(after))
      out.push({ class: 'deprovision', reason: 'externallyProvisioned removed and no image: BMO deprovisions the host' });
    else
      out.push({
        class: 'management-change',
        reason: 'externallyProvisioned removed: BMO takes the running host over as provisioned with its image',
      });
  }
  for (const [key, what] of [
    [
      DETACHED,
      ['detached: BMO stops managing the host (no power changes, no deprovisioning)', 'no longer detached: BMO manages the host again'],
    ],
    [PAUSED, ['paused: BMO stops reconciling the host', 'no longer paused: BMO reconciles the host again']],
  ] as const) {
    const was = before.annotations[key] !== undefined;
    const now = after.annotations[key] !== undefined;
    if (was !== now) out.push({ class: 'management-change', reason: now ? what[0] : what[1] });
  }
  return out;
}

export function hostChanged(before: KubeObject, after: KubeObject, changed: string[][]): Found[] {
  const out: Found[] = [
    ...imageImpacts(before, after, changed),
    ...powerImpacts(before, after),
    ...managementImpacts(before, after, changed),
  ];
  if (changed.some((p) => under(p, 'spec', 'consumerRef'))) {
    const c = (o: KubeObject): string => {
      const r = o.get('spec.consumerRef');
      return isRecord(r) ? `${nonEmptyText(r.kind) ?? '?'}/${nonEmptyText(r.name) ?? '?'}` : '(none)';
    };
    out.push({ class: 'consumer-change', reason: `consumerRef ${c(before)} -> ${c(after)}: the host changes hands` });
  }
  const later = [...new Set(changed.filter((p) => p[0] === 'spec' && NEXT_PROVISIONING.includes(p[1]!)).map((p) => `spec.${p[1]}`))];
  if (later.length)
    out.push({ class: 'next-provisioning', reason: `${later.join(', ')} changed: BMO uses it at the next provisioning only` });
  if (changed.some((p) => under(p, 'spec', 'automatedCleaningMode')))
    out.push({
      class: 'config-change',
      reason: `automatedCleaningMode: ${String(after.get('spec.automatedCleaningMode') ?? 'metadata')}: applies at the next (de)provisioning`,
    });
  return out;
}
