/**
 * generate mode (pure): HardwareInventory items -> BareMetalHost (+ HardwareData, + airshipctl
 * host catalogue), and the `environment.metal3.io: baremetal` label on referenced Secrets.
 */
import type { Context, Desired, KubeObject } from '../../src/krm/index.js';
import { schemeFor } from '../../src/model/bmc.js';
import type { HardwareInventorySpec } from '../../src/model/hardware-inventory.js';
import { chooseBootMac, chooseRootDisk } from '../../src/model/host-policy.js';
import { dnsName, naturalCompare, OWNER_GENERATE, type BmcEntry, type Spec } from './types.js';

// the boot MAC and root disk policies are shared with site-from-catalogue (src/model/host-policy.ts)
export { chooseBootMac, chooseRootDisk, type BootMacChoice, type RootChoice } from '../../src/model/host-policy.js';

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

export function bmcAddress(inv: HardwareInventorySpec, bootMethod: 'virtualmedia' | 'ipxe'): string {
  const raw = /^[a-z][a-z0-9+.-]*:\/\//i.test(inv.bmc.address) ? inv.bmc.address : `https://${inv.bmc.address}`;
  const u = new URL(raw);
  const vendor = /dell/i.test(inv.system.manufacturer ?? '') ? 'dell' : undefined;
  const scheme = schemeFor({ vendor, bootMethod, transport: u.protocol === 'http:' ? 'http' : 'https' });
  return `${scheme}://${u.host}${inv.bmc.systemPath}`;
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
    const name = item.name;
    if (seen.has(name)) {
      ctx.results.error(
        `HardwareInventory ${name} appears twice (${seen.get(name)!.file()?.path ?? '?'} and ${item.file()?.path ?? '?'}); delete one`,
        { object: item, rule: 'generate/duplicate-inventory' },
      );
      continue;
    }
    seen.set(name, item);
    const inv = (item.data.spec ?? {}) as HardwareInventorySpec;
    if (!inv.bmc?.address || !inv.bmc.systemPath) {
      ctx.results.error(`HardwareInventory ${name}: spec.bmc.address and spec.bmc.systemPath are required; re-run discover`, {
        object: item,
        field: 'spec.bmc',
        rule: 'generate/bad-inventory',
      });
      continue;
    }
    if (/^([a-z][a-z0-9+.-]*:\/\/)?[^?#]*@/i.test(inv.bmc.address)) {
      ctx.results.error(
        `HardwareInventory ${name}: spec.bmc.address carries a user name or password; remove them (credentials belong in the BMC Secret) or re-run discover`,
        { object: item, field: 'spec.bmc.address', rule: 'generate/credentials-in-address' },
      );
      continue;
    }
    const dns = dnsName(name);
    if (dns !== name) {
      ctx.results.error(`HardwareInventory ${name}: the name is not DNS-1123 (try "${dns}"); rename the item`, {
        object: item,
        field: 'metadata.name',
        rule: 'generate/bad-name',
      });
      continue;
    }
    const ov = overrideFor(spec, name, inv);
    const ns = spec.namespace ?? item.namespace;
    const bootMethod = spec.bootMethod ?? 'virtualmedia';
    const credentialsName = ov?.credentialsSecret ?? inv.bmc.credentialsSecret ?? `${name}-bmc-secret`;
    secrets.add(`${ns ?? ''}/${credentialsName}`);
    const insecure = ov?.insecureSkipVerify ?? inv.bmc.insecureSkipVerify ?? false;
    const bmc: Record<string, unknown> = { address: bmcAddress(inv, bootMethod), credentialsName };
    if (insecure) bmc.disableCertificateVerification = true;

    let bootMac = ov?.bootMACAddress?.toLowerCase();
    if (!bootMac) {
      const c = chooseBootMac(inv.nics ?? []);
      bootMac = c.mac;
      if (!c.mac)
        ctx.results[bootMethod === 'ipxe' ? 'error' : 'warning'](
          `HardwareInventory ${name}: ${c.why}; set bmcs[].bootMACAddress for this host`,
          {
            object: item,
            field: 'spec.nics',
            rule: 'generate/no-boot-mac',
          },
        );
    }
    const root = chooseRootDisk(inv.disks ?? [], spec.rootDeviceMinGiB ?? 20);
    if (root.warning)
      ctx.results.warning(`HardwareInventory ${name}: ${root.warning}`, { object: item, field: 'spec.disks', rule: 'generate/root-disk' });

    const profile = ov?.profile ?? spec.hardwareProfile ?? 'default';
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
    const sortedLabels = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));

    const bmhSpec: Record<string, unknown> = { online: spec.online ?? false, bmc };
    if (bootMac) bmhSpec.bootMACAddress = bootMac;
    if (inv.bootMode) bmhSpec.bootMode = inv.bootMode;
    if (root.hints) bmhSpec.rootDeviceHints = root.hints;
    if (spec.hardwareData) bmhSpec.inspectionMode = 'disabled';
    const md: Record<string, unknown> = { name };
    if (ns) md.namespace = ns;
    md.labels = sortedLabels;
    const path = `hosts/${name}.yaml`;
    desired.push({ data: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: md, spec: bmhSpec }, path });
    if (spec.hardwareData) desired.push({ data: hardwareData(name, ns, inv), path });
    if (spec.hostCatalogue) {
      const entry: Record<string, unknown> = { bmcAddress: bmc.address };
      if (bootMac) entry.macAddress = bootMac;
      entry.bootMode = inv.bootMode ?? 'UEFI';
      entry.disableCertificateVerification = insecure;
      entry.hardwareProfile = profile;
      if (Object.keys(ov?.labels ?? {}).length) entry.labels = ov!.labels;
      catalogue[name] = entry;
    }
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
