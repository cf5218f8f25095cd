/** A host's networkData: written as the hostgenerator-m3 template writes it, and read back from its Secret. */
import type { KubeObject } from '../../src/krm/index.js';
import { isRecord, yamlLib } from '../../src/krm/index.js';
import { indent, toYaml } from './goyaml.js';
import type { Json, Networking } from './inputs.js';

/** The networkData text exactly as the template writes it (block scalar content). */
export function renderNetworkData(net: Networking, macs: Record<string, string>, ips: Record<string, string>): string {
  let s = 'links:';
  for (const link of net.links) {
    s += '\n-\n' + indent(toYaml(link), 2);
    const mac = macs[String(link.id)];
    if (mac) s += '\n  ethernet_mac_address: ' + mac;
  }
  s += '\nnetworks:';
  for (const n of net.networks) {
    s += '\n-\n' + indent(toYaml(n), 2);
    s += '\n  ip_address: ' + (ips[String(n.id)] ?? '');
  }
  // sprig toYaml of a missing value is `null`, as airshipctl writes it (planHosts warns)
  s += '\nservices:\n' + indent(toYaml(net.services ?? null), 2) + '\n';
  return s;
}

/** The networkData of a network-data Secret (`stringData`, or base64 `data`), parsed. */
export function parseNetworkData(secret: KubeObject): Json | undefined {
  const sd = secret.get('stringData.networkData');
  const d = secret.get('data.networkData');
  const text = typeof sd === 'string' ? sd : typeof d === 'string' ? Buffer.from(d, 'base64').toString('utf8') : undefined;
  if (text === undefined) return undefined;
  try {
    const v: unknown = yamlLib().parse(text);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
