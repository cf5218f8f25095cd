/**
 * generate mode (pure): HardwareInventory items -> BareMetalHost (+ HardwareData, + airshipctl
 * host catalogue), and the `environment.metal3.io: baremetal` label on referenced Secrets.
 */
import type { Context, Desired, KubeObject } from '../../src/krm/index.js';
import { chooseScheme, type SchemeChoice } from '../../src/model/bmc.js';
import { incompleteParts, type HardwareInventorySpec } from '../../src/model/hardware-inventory.js';
// the boot MAC and root disk policies are shared with site-from-catalogue
import { chooseBootMac, chooseRootDisk } from '../../src/model/host-policy.js';
import { dnsName, naturalCompare, OWNER_GENERATE, type BmcEntry, type Spec } from './types.js';
import { pushAll } from '../../src/krm/index.js';

function labelValue(s: string): string {
  return s
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 63)
    .replace(/[^A-Za-z0-9]+$/, '');
}

function vendorLabel(m: string | undefined): string | undefined {
  if (!m) return undefined;
  const first = m.toLowerCase().split(/[\s,]+/)[0] ?? '';
  return labelValue(first) || undefined;
}

/** The BMC address BMO gets: the scheme chosen from the requested boot method and what the BMC and System offer. */
function bmcAddress(
  inv: HardwareInventorySpec,
  want: NonNullable<Spec['bootMethod']>,
  bootMac: boolean,
): SchemeChoice & { address: string } {
  const raw = /^[a-z][a-z0-9+.-]*:\/\//i.test(inv.bmc.address) ? inv.bmc.address : `https://${inv.bmc.address}`;
  const u = new URL(raw);
  const manufacturer = inv.system.manufacturer ?? '';
  const choice = chooseScheme(want, {
    vendor: /dell/i.test(manufacturer) ? 'dell' : /^(hpe|hp)\b/i.test(manufacturer) ? 'hpe' : undefined,
    virtualMedia: inv.bmc.virtualMedia,
    uefiHttp: inv.uefiHttp,
    bootMac,
    transport: u.protocol === 'http:' ? 'http' : 'https',
  });
  return { ...choice, address: `${choice.scheme}://${u.host}${inv.bmc.systemPath}` };
}

function overrideFor(spec: Spec, name: string, inv: HardwareInventorySpec): BmcEntry | undefined {
  const bmcs = spec.bmcs ?? [];
  return bmcs.find((b) => b.name === name) ?? bmcs.find((b) => !b.name && b.address === inv.bmc.address);
}

function hardwareData(name: string, ns: string | undefined, inv: HardwareInventorySpec): Record<string, unknown> {
  const hw: Record<string, unknown> = {};
  const cpu: Record<string, unknown> = {};
  if (inv.cpu?.architecture) cpu.arch = inv.cpu.architecture;
  if (inv.cpu?.maxSpeedMHz) cpu.clockMegahertz = inv.cpu.maxSpeedMHz;
  if (inv.cpu?.threads ?? inv.cpu?.cores) cpu.count = inv.cpu?.threads ?? inv.cpu?.cores;
  if (inv.cpu?.model) cpu.model = inv.cpu.model;
  if (Object.keys(cpu).length) hw.cpu = cpu;
  if (inv.system.biosVersion) hw.firmware = { bios: { version: inv.system.biosVersion } };
  if (inv.system.hostName) hw.hostname = inv.system.hostName;
  hw.nics = inv.nics
    .filter((n) => !n.type)
    .map((n) => {
      const o: Record<string, unknown> = { mac: n.mac, name: n.id };
      if (n.pxe || n.httpBoot) o.pxe = true;
      if (n.speedMbps) o.speedGbps = Math.floor(n.speedMbps / 1000);
      return o;
    });
  if (inv.memoryMiB) hw.ramMebibytes = inv.memoryMiB;
  hw.storage = inv.disks.map((d) => {
    const o: Record<string, unknown> = { name: d.name };
    if (d.sizeBytes !== undefined) o.sizeBytes = d.sizeBytes;
    if (d.rotational !== undefined) o.rotational = d.rotational;
    if (d.type) o.type = d.type;
    if (d.serialNumber) o.serialNumber = d.serialNumber;
    if (d.wwn) o.wwn = d.wwn;
    if (d.model) o.model = d.model;
    if (d.vendor) o.vendor = d.vendor;
    return o;
  });
  const sv: Record<string, unknown> = {};
  if (inv.system.manufacturer) sv.manufacturer = inv.system.manufacturer;
  if (inv.system.model) sv.productName = inv.system.model;
  if (inv.system.serialNumber) sv.serialNumber = inv.system.serialNumber;
  if (Object.keys(sv).length) hw.systemVendor = sv;
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'HardwareData',
    metadata: ns ? { name, namespace: ns } : { name },
    spec: { hardware: hw },
  };
}

/** The inventory of an item when a BareMetalHost can be made from it; otherwise an error result and undefined. */
function usableInventory(ctx: Context<Spec>, item: KubeObject, seen: Map<string, KubeObject>): HardwareInventorySpec | undefined {
  const name = item.name;
  const first = seen.get(name);
  if (first) {
    ctx.results.error(
      `HardwareInventory ${name} appears twice (${first.file()?.path ?? '?'} and ${item.file()?.path ?? '?'}); delete one`,
      {
        object: item,
        rule: 'generate/duplicate-inventory',
      },
    );
    return undefined;
  }
  seen.set(name, item);
  const inv = (item.data.spec ?? {}) as HardwareInventorySpec;
  if (!inv.bmc?.address || !inv.bmc.systemPath) {
    ctx.results.error(`HardwareInventory ${name}: spec.bmc.address and spec.bmc.systemPath are required; re-run discover`, {
      object: item,
      field: 'spec.bmc',
      rule: 'generate/bad-inventory',
    });
    return undefined;
  }
  if (/^([a-z][a-z0-9+.-]*:\/\/)?[^?#]*@/i.test(inv.bmc.address)) {
    ctx.results.error(
      `HardwareInventory ${name}: spec.bmc.address carries a user name or password; remove them (credentials belong in the BMC Secret) or re-run discover`,
      { object: item, field: 'spec.bmc.address', rule: 'generate/credentials-in-address' },
    );
    return undefined;
  }
  const dns = dnsName(name);
  if (dns !== name) {
    ctx.results.error(`HardwareInventory ${name}: the name is not DNS-1123 (try "${dns}"); rename the item`, {
      object: item,
      field: 'metadata.name',
      rule: 'generate/bad-name',
    });
    return undefined;
  }
  if (inv.notAHost) {
    ctx.results.info(`HardwareInventory ${name} is not a host (${inv.notAHost}); no BareMetalHost`, {
      object: item,
      field: 'spec.notAHost',
      rule: 'generate/not-a-host',
    });
    return undefined;
  }
  return inv;
}

/** Labels of a host: vendor, model, the hardware profile when one was chosen, then the configured ones. */
function hostLabels(spec: Spec, inv: HardwareInventorySpec, ov: BmcEntry | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  const vendor = vendorLabel(inv.system.manufacturer);
  if (vendor) labels['baremetal-krm.dev/vendor'] = vendor;
  const model = inv.system.model ? labelValue(inv.system.model.toLowerCase()) : '';
  if (model) labels['baremetal-krm.dev/model'] = model;
  // the profile the host must match (intent-validate checks it, the report groups by it):
  // only when one was chosen, not airshipctl's catch-all `default`
  const chosen = ov?.profile ?? spec.hardwareProfile;
  const prof = chosen ? labelValue(chosen) : '';
  if (prof) labels['baremetal-krm.dev/hardware-profile'] = prof;
  Object.assign(labels, spec.labels ?? {}, ov?.labels ?? {});
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The boot MAC (the override, else the policy), saying which rule chose it when it was the fallback. */
function bootMacOf(ctx: Context<Spec>, item: KubeObject, inv: HardwareInventorySpec, ov: BmcEntry | undefined): string | undefined {
  if (ov?.bootMACAddress) return ov.bootMACAddress.toLowerCase();
  const c = chooseBootMac(inv.nics ?? []);
  const at = { object: item, field: 'spec.nics', rule: 'generate/no-boot-mac' };
  if (c.rule === 'first-physical')
    ctx.results.info(`HardwareInventory ${item.name}: boot MAC ${c.mac}: ${c.why}`, { ...at, rule: 'generate/boot-mac' });
  if (!c.mac)
    ctx.results[ctx.spec.bootMethod === 'ipxe' ? 'error' : 'warning'](
      `HardwareInventory ${item.name}: ${c.why}; set bmcs[].bootMACAddress for this host`,
      at,
    );
  return c.mac;
}

/** The BareMetalHost of one inventory (+ HardwareData), and its host-catalogue entry. */
function hostFrom(ctx: Context<Spec>, item: KubeObject, inv: HardwareInventorySpec, secrets: Set<string>) {
  const { spec } = ctx;
  const name = item.name;
  const ov = overrideFor(spec, name, inv);
  const ns = spec.namespace ?? item.namespace;
  const credentialsName = ov?.credentialsSecret ?? inv.bmc.credentialsSecret ?? `${name}-bmc-secret`;
  secrets.add(`${ns ?? ''}/${credentialsName}`);
  const insecure = ov?.insecureSkipVerify ?? inv.bmc.insecureSkipVerify ?? false;
  const bootMac = bootMacOf(ctx, item, inv, ov);
  const scheme = bmcAddress(inv, spec.bootMethod ?? 'virtualmedia', !!bootMac);
  if (scheme.why)
    ctx.results.info(`HardwareInventory ${name}: ${scheme.scheme}:// because ${scheme.why}`, { object: item, rule: 'generate/bmc-scheme' });
  if (scheme.warning) ctx.results.warning(`HardwareInventory ${name}: ${scheme.warning}`, { object: item, rule: 'generate/bmc-scheme' });
  const bmc: Record<string, unknown> = { address: scheme.address, credentialsName };
  if (insecure) bmc.disableCertificateVerification = true;
  const root = chooseRootDisk(inv.disks ?? [], spec.rootDeviceMinGiB ?? 20);
  if (root.warning)
    ctx.results.warning(`HardwareInventory ${name}: ${root.warning}`, { object: item, field: 'spec.disks', rule: 'generate/root-disk' });
  const lacks = incompleteParts(inv);
  if (lacks.length)
    ctx.results.warning(
      `HardwareInventory ${name}: the snapshot is incomplete (${lacks.join(', ')}; a powered-off host may report so)${spec.hardwareData ? '; no HardwareData, and inspectionMode: agent so that BMO inspects the host' : '; BMO will inspect the host'}`,
      { object: item, rule: 'generate/incomplete' },
    );
  const withData = spec.hardwareData && !lacks.length;
  const bmhSpec: Record<string, unknown> = { online: spec.online ?? false, bmc };
  if (bootMac) bmhSpec.bootMACAddress = bootMac;
  if (inv.bootMode) bmhSpec.bootMode = inv.bootMode;
  if (root.hints) bmhSpec.rootDeviceHints = root.hints;
  // agent inspection reads the hardware from inside: what a BMC that reported nothing cannot give
  // (fast, out-of-band inspection would ask that same BMC again)
  if (spec.hardwareData) bmhSpec.inspectionMode = withData ? 'disabled' : 'agent';
  const md: Record<string, unknown> = { name };
  if (ns) md.namespace = ns;
  md.labels = hostLabels(spec, inv, ov);
  const path = `hosts/${name}.yaml`;
  const desired: Desired[] = [{ data: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: md, spec: bmhSpec }, path }];
  if (withData) desired.push({ data: hardwareData(name, ns, inv), path });
  const entry: Record<string, unknown> = { bmcAddress: bmc.address };
  if (bootMac) entry.macAddress = bootMac;
  entry.bootMode = inv.bootMode ?? 'UEFI';
  entry.disableCertificateVerification = insecure;
  entry.hardwareProfile = ov?.profile ?? spec.hardwareProfile ?? 'default';
  if (Object.keys(ov?.labels ?? {}).length) entry.labels = ov!.labels;
  return { desired, entry };
}

export function runGenerate(ctx: Context<Spec>): void {
  const spec = ctx.spec;
  const invs = ctx
    .ofKind('HardwareInventory', 'baremetal-krm.dev')
    .slice()
    .sort((a, b) => naturalCompare(a.name, b.name));
  const desired: Desired[] = [];
  const catalogue: Record<string, unknown> = {};
  const seen = new Map<string, KubeObject>();
  const secrets = new Set<string>();
  for (const item of invs) {
    const inv = usableInventory(ctx, item, seen);
    if (!inv) continue;
    const host = hostFrom(ctx, item, inv, secrets);
    pushAll(desired, host.desired);
    if (spec.hostCatalogue) catalogue[item.name] = host.entry;
  }
  if (spec.hostCatalogue && Object.keys(catalogue).length) {
    desired.push({
      data: {
        apiVersion: 'airshipit.org/v1alpha1',
        kind: 'VariableCatalogue',
        metadata: { name: spec.hostCatalogueName ?? 'host-catalogue', annotations: { 'config.kubernetes.io/local-config': 'true' } },
        hosts: { m3: catalogue },
      },
      path: `catalogue/${spec.hostCatalogueName ?? 'host-catalogue'}.yaml`,
    });
  }
  ctx.reconcile(OWNER_GENERATE, desired);
  // Secrets BMO adopts get this label; having it in Git avoids a diff after adoption
  for (const s of ctx.ofKind('Secret')) {
    if (s.apiVersion !== 'v1') continue;
    const ns = spec.namespace ?? s.namespace ?? '';
    if (!secrets.has(`${ns}/${s.name}`) && !secrets.has(`${s.namespace ?? ''}/${s.name}`)) continue;
    if (s.labels['environment.metal3.io'] !== 'baremetal') s.setLabel('environment.metal3.io', 'baremetal');
  }
}
