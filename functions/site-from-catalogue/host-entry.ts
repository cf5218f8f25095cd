/**
 * A host catalogue entry (`hosts.m3.<name>`) read with its types checked: every value the template
 * writes is text of the right shape, or an error names the host and the field. Values that may
 * be credentials (bmcUsername, bmcPassword, the user info of a bmcAddress) are described by their
 * kind, never quoted.
 */
import type { Context } from '../../src/krm/index.js';
import { isRecord } from '../../src/krm/index.js';
import { BMC_SCHEMES, parseBmcAddress, redactBmcAddress } from '../../src/model/bmc.js';
import { isIpAddress, parseIp } from '../../src/model/ip.js';
import type { Host, Inputs, Networking } from './inputs.js';
import { unknownLinkHint } from './link-hints.js';

const MAC_RE = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/;
const BOOT_MODES = ['UEFI', 'UEFISecureBoot', 'legacy'];

/** A host entry as the template uses it, every value checked. */
export interface HostEntry {
  macAddress: string;
  bootMode: string;
  bmcAddress: string;
  bmcUsername?: string;
  bmcPassword?: string;
  disableCertificateVerification: boolean;
  hardwareProfile: string;
  /** by network id, as in the catalogue */
  ipAddresses: Record<string, string>;
  /** by link id */
  macAddresses: Record<string, string>;
  labels: Record<string, string>;
}

/** What a value is, for messages that must not show it. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (isRecord(v)) return 'a mapping';
  if (typeof v === 'number') return 'a number';
  if (typeof v === 'boolean') return 'a boolean';
  return `a ${typeof v}`;
}

type Report = (message: string, field: string, rule: string) => void;

/** The entry of a host, or undefined after error results naming the host and each bad field. */
export function checkHostEntry<S>(ctx: Context<S>, h: Host, inputs: Inputs, net: Networking, emit: boolean): HostEntry | undefined {
  const before = ctx.results.count('error');
  const report: Report = (message, field, rule) =>
    ctx.results.error(`host ${h.name}: ${message}`, { object: h.source, field: h.field ? `${h.field}.${field}` : field, rule });
  const e = h.entry;
  const entry: HostEntry = {
    macAddress: bootMac(e.macAddress, report) ?? '',
    bmcAddress: bmcAddress(e.bmcAddress, report) ?? '',
    bootMode: bootMode(h, report) ?? '',
    disableCertificateVerification: certificateVerification(e.disableCertificateVerification, report),
    hardwareProfile: hardwareProfile(ctx, h, inputs, report),
    macAddresses: linkMacs(h, net, report),
    ipAddresses: networkAddresses(e.ipAddresses, net, report),
    labels: labels(e.labels, report),
    ...credentials(h, emit, report),
  };
  return ctx.results.count('error') === before ? entry : undefined;
}

/** YAML 1.1 reads an unquoted all-digit MAC (`52:54:00:12:34:56`) as a base-60 number. */
function sexagesimal(v: unknown): string {
  return typeof v === 'number' ? ` (YAML 1.1 reads an unquoted all-digit MAC as a base-60 number: quote it, "aa:bb:cc:dd:ee:ff")` : '';
}

/** A MAC address written as text; `label` names the field in messages. */
function macText(v: unknown, field: string, report: Report): string | undefined {
  if (typeof v === 'string' && MAC_RE.test(v)) return v;
  if (typeof v === 'string' || typeof v === 'number')
    report(`${field} "${v}" is not a MAC address (aa:bb:cc:dd:ee:ff)${sexagesimal(v)}`, field, 'host/bad-mac');
  else report(`${field} must be a MAC address (aa:bb:cc:dd:ee:ff), not ${kindOf(v)}`, field, 'host/bad-mac');
  return undefined;
}

function bootMac(v: unknown, report: Report): string | undefined {
  if (v === undefined || v === null || v === '') {
    report(
      'macAddress (the boot/PXE MAC) is missing; airshipctl would write `bootMACAddress: <no value>`',
      'macAddress',
      'host/missing-field',
    );
    return undefined;
  }
  return macText(v, 'macAddress', report);
}

/** A BMO address without user info; the address is shown with any user info masked. */
function bmcAddress(v: unknown, report: Report): string | undefined {
  const example = 'e.g. redfish+https://10.0.0.5/redfish/v1/Systems/1';
  if (v === undefined || v === null || v === '') {
    report(`bmcAddress is missing (${example})`, 'bmcAddress', 'host/missing-field');
    return undefined;
  }
  if (typeof v !== 'string') {
    report(`bmcAddress must be an address (${example}), not ${kindOf(v)}`, 'bmcAddress', 'host/bad-bmc-address');
    return undefined;
  }
  const shown = redactBmcAddress(v);
  if (shown !== v || parseBmcAddress(v)?.userinfo) {
    report(
      `bmcAddress "${shown}" carries a user name or password: it would be written into the BareMetalHost and the site's catalogues in plain text; remove them from the address and give the credentials as bmcUsername/bmcPassword in a SOPS-encrypted catalogue, or in the BMC Secret`,
      'bmcAddress',
      'host/credentials-in-address',
    );
    return undefined;
  }
  const a = parseBmcAddress(v);
  if (!a) report(`bmcAddress ${whyNotAnAddress(v)} (${example})`, 'bmcAddress', 'host/bad-bmc-address');
  else if (!a.known)
    report(
      `bmcAddress: scheme ${a.scheme.replace(/\+.*$/, '')} is not one the baremetal-operator knows (${BMC_SCHEMES.map((s) => s.name).join(', ')})`,
      'bmcAddress',
      'host/bad-bmc-address',
    );
  return a?.known ? v : undefined;
}

/** Why text is no BMC address, without quoting it (a malformed address may hold anything). */
function whyNotAnAddress(v: string): string {
  if (/\s/.test(v)) return 'contains white space';
  const port = /^(?:[a-z][a-z0-9+.-]*:\/\/)?[^/]*:(\d+)(?:\/|$)/i.exec(v)?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return `has port ${port}, outside 1-65535`;
  return 'is not a BMC address (<scheme>[+http|+https]://host[:port]/<system path>, or host[:port] for IPMI)';
}

function bootMode(h: Host, report: Report): string | undefined {
  const v = h.entry.bootMode;
  if (v === undefined || v === null || v === '') {
    const rediscover = h.inventory && h.source === h.inventory.object ? ' (or re-run discovery)' : '';
    report(
      `bootMode is missing; airshipctl would write \`bootMode: <no value>\`; set ${h.field ? `${h.field}.` : ''}bootMode to one of ${BOOT_MODES.join(', ')}${rediscover}`,
      'bootMode',
      'host/missing-field',
    );
    return undefined;
  }
  if (typeof v === 'string' && BOOT_MODES.includes(v)) return v;
  const shown = typeof v === 'string' ? `"${v}"` : kindOf(v);
  report(`bootMode ${shown} must be one of ${BOOT_MODES.join(', ')}`, 'bootMode', 'host/bad-boot-mode');
  return undefined;
}

function certificateVerification(v: unknown, report: Report): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  report(
    `disableCertificateVerification must be true or false, not ${JSON.stringify(v)}`,
    'disableCertificateVerification',
    'host/bad-field',
  );
  return false;
}

function hardwareProfile<S>(ctx: Context<S>, h: Host, inputs: Inputs, report: Report): string {
  const v = h.entry.hardwareProfile;
  if (v === undefined || v === null || v === '') return 'default';
  if (typeof v !== 'string') {
    report(`hardwareProfile must be a profile name, not ${kindOf(v)}`, 'hardwareProfile', 'host/bad-field');
    return 'default';
  }
  const p = inputs.profiles.get(v);
  if (!p)
    report(
      `hardwareProfile "${v}" is not defined (known: ${[...inputs.profiles.keys()].join(', ')}); add a VariableCatalogue hardwareprofile-${v} with a hardwareProfile: {firmware, raid} field`,
      'hardwareProfile',
      'host/unknown-profile',
    );
  else if (p.empty)
    ctx.results.error(
      `host ${h.name}: hardwareProfile "${v}" is empty (hardwareProfile: {} in VariableCatalogue ${p.source?.name ?? `hardwareprofile-${v}`}); airshipctl fails with "can't find hardwareProfile ${v}": give the profile firmware and/or raid, or drop hardwareProfile from host ${h.name} to use the default`,
      {
        object: p.source ?? h.source,
        field: p.source ? 'hardwareProfile' : h.field ? `${h.field}.hardwareProfile` : 'hardwareProfile',
        rule: 'host/empty-profile',
      },
    );
  return v;
}

/** A mapping of the entry, or {} after an error when it is something else. */
function mapping(v: unknown, field: string, what: string, report: Report): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (isRecord(v)) return v;
  report(`${field} must be a mapping of ${what}, not ${kindOf(v)}`, field, 'host/bad-field');
  return {};
}

function linkMacs(h: Host, net: Networking, report: Report): Record<string, string> {
  const out: Record<string, string> = {};
  const linkIds = new Set(net.links.map((l) => String(l.id)));
  for (const [link, m] of Object.entries(mapping(h.entry.macAddresses, 'macAddresses', 'link id to MAC', report))) {
    const field = `macAddresses.${link}`;
    if (!linkIds.has(link)) {
      report(
        `macAddresses has link "${link}" but commonHostNetworking.links has ${linkIds.size ? `only ${[...linkIds].join(', ')}` : 'none'}${unknownLinkHint(h, link, m, net)}; airshipctl would drop this MAC silently`,
        field,
        'host/unknown-link',
      );
      continue;
    }
    const mac = macText(m, field, report);
    if (mac) out[link] = mac;
  }
  return out;
}

function networkAddresses(v: unknown, net: Networking, report: Report): Record<string, string> {
  const out: Record<string, string> = {};
  const netIds = new Set(net.networks.map((n) => String(n.id)));
  for (const [id, ip] of Object.entries(mapping(v, 'ipAddresses', 'network id to address', report))) {
    const field = `ipAddresses.${id}`;
    if (!netIds.has(id)) {
      report(
        `ipAddresses has network "${id}" but commonHostNetworking.networks has ${netIds.size ? `only ${[...netIds].join(', ')}` : 'none'}`,
        field,
        'host/unknown-network',
      );
      continue;
    }
    if (typeof ip !== 'string' || !isIpAddress(ip)) {
      report(`${field} ${typeof ip === 'string' ? `"${ip}"` : kindOf(ip)} is not an IP address`, field, 'host/bad-ip');
      continue;
    }
    const type = String(net.networks.find((n) => String(n.id) === id)?.type ?? '');
    const fam = parseIp(ip)!.family;
    if ((/^ipv4/.test(type) && fam !== 4) || (/^ipv6/.test(type) && fam !== 6))
      report(`${field} "${ip}" is an IPv${fam} address but network ${id} is type ${type}`, field, 'host/bad-ip');
    else out[id] = ip;
  }
  return out;
}

/** Label values as Kubernetes writes them: text (a YAML number or boolean is written out). */
function labels(v: unknown, report: Report): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(mapping(v, 'labels', 'label to value', report))) {
    if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') out[k] = String(val);
    else if (val === null) out[k] = '';
    else report(`labels.${k} must be a text value, not ${kindOf(val)}`, `labels.${k}`, 'host/bad-field');
  }
  return out;
}

/**
 * bmcUsername/bmcPassword: one string each, or absent. Anything else is refused whatever the
 * credentials mode (a list or mapping would be written as `[object Object]`, a number as its
 * decimal: a password `0777` is octal 511 to YAML 1.1); the value is never shown.
 */
function credentials(h: Host, emit: boolean, report: Report): Pick<HostEntry, 'bmcUsername' | 'bmcPassword'> {
  const out: Pick<HostEntry, 'bmcUsername' | 'bmcPassword'> = {};
  for (const f of ['bmcUsername', 'bmcPassword'] as const) {
    const v = h.entry[f];
    if (v === undefined || v === null || v === '') {
      if (emit && !h.credentialsSecret) report(`${f} is missing and credentials.mode is emit`, f, 'host/missing-field');
      continue;
    }
    if (typeof v === 'string') out[f] = v;
    else {
      const fix = typeof v === 'number' ? 'quote it (YAML reads unquoted digits as a number)' : 'write it as one quoted string';
      report(`${f} must be a string, not ${kindOf(v)} (the value is not shown): ${fix}`, f, 'host/bad-field');
    }
  }
  return out;
}
