/** HardwareInventory items (bmh-from-redfish discover) as hosts, merged with catalogue entries of the same name. */
import type { Context, KubeObject } from '../../src/krm/index.js';
import { compareStrings, isRecord, scalarText } from '../../src/krm/index.js';
import { parseBmcAddress } from '../../src/model/bmc.js';
import { type HardwareInventorySpec, INVENTORY_KIND, type InventoryNic } from '../../src/model/hardware-inventory.js';
import { chooseBootMac } from '../../src/model/host-policy.js';
import type { Inputs, Json } from './inputs.js';
import type { Spec } from './spec.js';

/**
 * The BMO address of a discovered System: `https://10.0.0.5` + `/redfish/v1/Systems/1` ->
 * `redfish+https://10.0.0.5/redfish/v1/Systems/1` (a BMO scheme already written is kept). An
 * address that is none (or carries user info) is returned as written: the host checks refuse it
 * with a masked message.
 */
function redfishAddress(address: string, systemPath: string): string {
  const written = /^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `https://${address}`;
  const a = parseBmcAddress(written);
  if (!a || a.userinfo) return address;
  const scheme = a.scheme === 'http' || a.scheme === 'https' ? `redfish+${a.scheme}` : a.scheme;
  const port = a.port === undefined ? '' : `:${a.port}`;
  const path = a.path.includes('/redfish/') || !systemPath ? a.path : `${a.path}${systemPath.startsWith('/') ? '' : '/'}${systemPath}`;
  return `${scheme}://${a.host}${port}${path}`;
}

export function inventoryHosts<S>(ctx: Context<S>, spec: Spec, inputs: Inputs): void {
  for (const o of ctx.ofKind(INVENTORY_KIND, 'baremetal-krm.dev')) {
    const inv = o.data.spec as HardwareInventorySpec | undefined;
    if (!inv || !isRecord(inv.bmc) || !Array.isArray(inv.nics) || typeof inv.bmc.address !== 'string') {
      ctx.results.error('HardwareInventory has no spec.bmc.address or spec.nics: re-run bmh-from-redfish discover', {
        object: o,
        field: 'spec',
        rule: 'inventory/invalid',
      });
      continue;
    }
    const nics = [...inv.nics].sort((a, b) => compareStrings(a.id, b.id));
    const discovered = discoveredEntry(ctx, spec, o, inv, nics);
    const existing = inputs.hosts.get(o.name);
    if (!existing) {
      discovered.hardwareProfile = spec.inventory?.hardwareProfile ?? 'default';
      inputs.hosts.set(o.name, {
        name: o.name,
        entry: discovered,
        source: o,
        field: 'spec',
        inventory: { object: o, spec: inv },
        credentialsSecret: inv.bmc.credentialsSecret,
      });
      continue;
    }
    // the catalogue types what it knows; what it says must match what the hardware reports
    const mac = scalarText(existing.entry.macAddress);
    if (mac && !nics.some((n) => n.mac.toLowerCase() === mac.toLowerCase())) {
      ctx.results.error(
        `host ${o.name}: catalogue macAddress ${mac} is not a NIC of the discovered hardware (${nics.map((n) => n.mac).join(', ')}); fix the catalogue or re-run discovery`,
        { object: existing.source, field: `${existing.field}.macAddress`, rule: 'inventory/mac-mismatch' },
      );
    }
    const merged: Json = { ...discovered, ...existing.entry };
    if (isRecord(discovered.macAddresses) || isRecord(existing.entry.macAddresses))
      merged.macAddresses = {
        ...(isRecord(discovered.macAddresses) ? discovered.macAddresses : {}),
        ...(isRecord(existing.entry.macAddresses) ? existing.entry.macAddresses : {}),
      };
    existing.entry = merged;
    existing.inventory = { object: o, spec: inv };
    if (inv.bmc.credentialsSecret) existing.credentialsSecret = inv.bmc.credentialsSecret;
  }
}

/** The catalogue fields discovery knows: boot MAC (the NIC bmh-from-redfish would boot from), boot mode, BMC, link MACs. */
function discoveredEntry<S>(ctx: Context<S>, spec: Spec, o: KubeObject, inv: HardwareInventorySpec, nics: InventoryNic[]): Json {
  const bootMac = chooseBootMac(inv.nics).mac;
  const boot = bootMac ? nics.find((n) => n.mac === bootMac) : undefined;
  const linkMacs: Record<string, string> = {};
  for (const [link, nicId] of Object.entries(spec.inventory?.linkNics ?? {})) {
    const nic = nics.find((n) => n.id === nicId);
    if (nic) linkMacs[link] = nic.mac;
    else
      ctx.results.error(
        `spec.inventory.linkNics.${link}: host ${o.name} has no NIC "${nicId}" (it has ${nics.map((n) => n.id).join(', ') || 'none'})`,
        { object: o, field: 'spec.nics', rule: 'inventory/unknown-nic' },
      );
  }
  const discovered: Json = {};
  if (inv.bootMode) discovered.bootMode = inv.bootMode;
  if (boot) discovered.macAddress = boot.mac;
  discovered.bmcAddress = redfishAddress(inv.bmc.address, typeof inv.bmc.systemPath === 'string' ? inv.bmc.systemPath : '');
  if (inv.bmc.insecureSkipVerify !== undefined) discovered.disableCertificateVerification = inv.bmc.insecureSkipVerify;
  if (Object.keys(linkMacs).length) discovered.macAddresses = linkMacs;
  return discovered;
}
