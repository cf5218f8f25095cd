/**
 * The likely fix for a catalogue MAC keyed by a link id that commonHostNetworking does not have
 * (`macAddresses: {eno1: ...}` while the links are oam and pxe): the link of that name, the
 * provisioning link for the boot MAC, or the physical link that has no MAC yet.
 */
import { isRecord } from '../../src/krm/index.js';
import type { Host, Json, Networking } from './inputs.js';

const PXE_WORD = /pxe|provision/i;

/** The link hosts PXE-boot on, and why we think so. */
function provisioningLink(net: Networking): { id: string; why: string } | undefined {
  const iface = net.provisioningInterface;
  const named = iface ? net.links.find((l) => l.id === iface || l.name === iface) : undefined;
  if (named) return { id: String(named.id), why: `ironic.provisioningInterface is ${iface}` };
  const pxeNet = net.networks.find((n) => PXE_WORD.test(String(n.id)) && typeof n.link === 'string');
  if (pxeNet && net.links.some((l) => l.id === pxeNet.link)) return { id: String(pxeNet.link), why: `the link of network ${pxeNet.id}` };
  const pxeLink = net.links.find((l) => PXE_WORD.test(String(l.id)));
  return pxeLink ? { id: String(pxeLink.id), why: 'the provisioning link' } : undefined;
}

/** Links that take a NIC's MAC: `phy` (or untyped), not bonds and VLANs. */
function isPhysical(l: Json): boolean {
  return l.type === undefined || l.type === 'phy';
}

/** Text to append to the unknown-link message ('' when there is no likely fix). */
export function unknownLinkHint(h: Host, link: string, mac: unknown, net: Networking): string {
  const byName = net.links.find((l) => l.name === link);
  if (byName)
    return `; links are keyed by id, and the link named ${link} has id "${String(byName.id)}": write macAddresses.${String(byName.id)}`;
  const given = isRecord(h.entry.macAddresses) ? h.entry.macAddresses : {};
  const boot = typeof h.entry.macAddress === 'string' ? h.entry.macAddress.toLowerCase() : undefined;
  const pxe = provisioningLink(net);
  if (boot && typeof mac === 'string' && mac.toLowerCase() === boot && pxe && !(pxe.id in given))
    return `; its MAC is the boot MAC (macAddress), so it is probably link "${pxe.id}" (${pxe.why}): write macAddresses.${pxe.id}`;
  // the provisioning link takes the boot MAC: for another MAC, the physical links still without one
  const free = net.links
    .filter((l) => isPhysical(l) && !(String(l.id) in given) && !(boot && pxe && l.id === pxe.id))
    .map((l) => String(l.id));
  if (free.length === 1)
    return `; it is probably link "${free[0]}" (the only physical link without a MAC for this host): write macAddresses.${free[0]}`;
  if (free.length > 1) return `; the physical links without a MAC for this host are ${free.join(', ')}: key the MAC by one of them`;
  return '';
}
