/**
 * Hardware against profiles: every host (BareMetalHost, or a HardwareInventory of no host) with
 * its hardware (HardwareData, status.hardware or its HardwareInventory) against the
 * HardwareClassifications and HardwareProfiles that name or select it. The facts feed the report.
 */
import type { KubeObject } from '../../krm/index.js';
import { isRecord } from '../../krm/index.js';
import { type Head, identityKey, type RuleContext, type RuleFamily, type Tree } from '../context.js';
import { HARDWARE_ANNOTATION, hostHardware, matchClassification, matchProfile } from '../hardware.js';
import type { FindingPlace, HostFact, HostProfileOutcome } from '../types.js';
import type { HostRules } from './hosts.js';

/** Where a rendered host's hardware came from: its annotation (written by baremetal-krm render). */
export const ANNOTATED_SOURCE = `BareMetalHost annotation ${HARDWARE_ANNOTATION}`;

function annotatedHardware(text: string): HardwareSource | undefined {
  try {
    const data: unknown = JSON.parse(text);
    return isRecord(data) ? { source: ANNOTATED_SOURCE, data, kind: 'metal3' } : undefined;
  } catch {
    return undefined;
  }
}

const PROFILE_KEY = 'baremetal-krm.dev/hardware-profile';
const NO_INVENTORY = 'no hardware inventory';

interface HardwareSource {
  source: string;
  data: unknown;
  kind: 'metal3' | 'inventory';
}

interface Candidate {
  o: KubeObject;
  hw?: HardwareSource;
}

export class HardwareProfileRules implements RuleFamily {
  readonly facts: HostFact[] = [];
  readonly #classifications: { o: KubeObject; characteristics: unknown }[] = [];
  readonly #profiles: { o: KubeObject; spec: Tree; selector?: Tree }[] = [];

  constructor(
    private readonly ctx: RuleContext,
    private readonly hosts: HostRules,
  ) {}

  visit(o: KubeObject, head: Head, tree: Tree | undefined): void {
    if (!tree) return;
    const spec = isRecord(tree.spec) ? tree.spec : {};
    if (head.kind === 'HardwareClassification' && head.group === 'metal3.io')
      this.#classifications.push({ o, characteristics: spec.hardwareCharacteristics });
    else if (head.kind === 'HardwareProfile' && head.group === 'baremetal-krm.dev') {
      const sel = isRecord(spec.selector) && isRecord(spec.selector.matchLabels) ? spec.selector.matchLabels : undefined;
      this.#profiles.push({ o, spec, selector: sel && Object.keys(sel).length > 0 ? sel : undefined });
    }
  }

  finish(): void {
    for (const c of this.#candidates()) this.facts.push(this.#host(c));
  }

  /** BareMetalHosts with their hardware, then the HardwareInventory snapshots no host took. */
  #candidates(): Candidate[] {
    const out: Candidate[] = [];
    for (const b of this.hosts.bareMetalHosts) {
      const head = this.ctx.head(b.o);
      const hwd = this.hosts.hardwareData.get(identityKey('BareMetalHost', head.namespace, head.name));
      const inv = this.hosts.inventoryOf.get(b.o);
      let hw: HardwareSource | undefined;
      if (hwd && isRecord(hwd.hardware)) hw = { source: `HardwareData ${hwd.o.name}`, data: hwd.hardware, kind: 'metal3' };
      else if (b.statusHardware) hw = { source: 'BareMetalHost status.hardware', data: b.statusHardware, kind: 'metal3' };
      else if (inv) hw = { source: `HardwareInventory ${inv.o.name}`, data: inv.spec, kind: 'inventory' };
      else if (head.annotations[HARDWARE_ANNOTATION] !== undefined) hw = annotatedHardware(head.annotations[HARDWARE_ANNOTATION]!);
      out.push({ o: b.o, hw });
    }
    const attached = new Set(this.hosts.inventoryOf.values());
    for (const inv of this.hosts.inventories)
      if (!attached.has(inv)) out.push({ o: inv.o, hw: { source: `HardwareInventory ${inv.o.name}`, data: inv.spec, kind: 'inventory' } });
    return out;
  }

  #host({ o, hw }: Candidate): HostFact {
    const h = this.ctx.head(o);
    const fact: HostFact = { name: h.name, kind: h.kind, object: o, labels: h.labels, profiles: [] };
    if (h.namespace) fact.namespace = h.namespace;
    if (hw) {
      fact.hardwareSource = hw.source;
      fact.hardware = hostHardware(hw.data, hw.kind);
    }
    const byLabel = h.labels[PROFILE_KEY];
    const wanted = byLabel ?? h.annotations[PROFILE_KEY];
    // where the profile was asked for: the label, else the annotation
    const wantedAt = byLabel !== undefined ? 'labels' : 'annotations';
    const byAnnotation = new Set<HostProfileOutcome>();
    const add = (entry: HostProfileOutcome, named: boolean): void => {
      fact.profiles.push(entry);
      if (named && wantedAt === 'annotations') byAnnotation.add(entry);
    };
    for (const c of this.#classifications) {
      // a HardwareClassification only classifies hosts of its own namespace (as the controller);
      // an object without a namespace (a HardwareInventory snapshot, a document whose namespace
      // kustomize sets later) is not known to be elsewhere
      if (c.o.namespace && h.namespace && c.o.namespace !== h.namespace) continue;
      const byHwccLabel = Object.hasOwn(h.labels, `hardwareclassification.metal3.io/${c.o.name}`);
      if (wanted !== c.o.name && !byHwccLabel) continue;
      const failures = fact.hardware ? matchClassification(c.characteristics, fact.hardware) : [NO_INVENTORY];
      add({ kind: 'HardwareClassification', name: c.o.name, matched: failures.length === 0, failures }, !byHwccLabel);
    }
    for (const p of this.#profiles) {
      const bySelector = p.selector !== undefined && Object.entries(p.selector).every(([k, v]) => h.labels[k] === String(v));
      if (wanted !== p.o.name && !bySelector) continue;
      const failures = fact.hardware ? matchProfile(p.spec, fact.hardware) : [NO_INVENTORY];
      add({ kind: 'HardwareProfile', name: p.o.name, matched: failures.length === 0, failures }, !bySelector);
    }
    this.#report(o, fact, wanted, wantedAt, byAnnotation);
    return fact;
  }

  #report(o: KubeObject, fact: HostFact, wanted: string | undefined, wantedAt: string, byAnnotation: Set<HostProfileOutcome>): void {
    const { ctx } = this;
    const missing = wanted !== undefined && !fact.profiles.some((x) => x.name === wanted);
    if (missing && fact.hardwareSource === ANNOTATED_SOURCE)
      // a rendered host: its profile stayed behind as local-config and was checked when it was rendered
      ctx.report(
        'hardware-profile',
        `${o.id} asks for hardware profile ${wanted}, which is not in the input (local-config, checked when the package was rendered): ` +
          `its hardware (${HARDWARE_ANNOTATION}) is not checked against it here; validate with the profile to check it`,
        { object: o, field: `metadata.${wantedAt}.${PROFILE_KEY}`, path: ['metadata', wantedAt, PROFILE_KEY] },
        'info',
      );
    else if (missing && ctx.on('reference'))
      ctx.report(
        'reference',
        `${o.id} asks for hardware profile ${wanted}, but no HardwareProfile or HardwareClassification of that name is in the input: add it or fix the ${wantedAt === 'labels' ? 'label' : 'annotation'}`,
        { object: o, field: `metadata.${wantedAt}.${PROFILE_KEY}`, path: ['metadata', wantedAt, PROFILE_KEY] },
      );
    for (const pr of fact.profiles) {
      if (pr.matched) continue;
      // asked for by the annotation (not a label or selector): point at the annotation
      const at: FindingPlace = byAnnotation.has(pr)
        ? { object: o, field: `metadata.annotations.${PROFILE_KEY}`, path: ['metadata', 'annotations', PROFILE_KEY] }
        : { object: o, field: 'metadata.labels', path: ['metadata', 'labels'] };
      ctx.report(
        'hardware-profile',
        pr.failures[0] === NO_INVENTORY
          ? `${o.id} must match ${pr.kind} ${pr.name} but has no hardware inventory (no status.hardware, HardwareData or HardwareInventory): inspect the host or add its HardwareInventory`
          : `${o.id} does not match ${pr.kind} ${pr.name} (hardware from ${fact.hardwareSource}): ${pr.failures.join('; ')}. Fix the host's hardware or assign another profile`,
        at,
      );
    }
  }
}
