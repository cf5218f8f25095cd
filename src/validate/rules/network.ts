/**
 * Host networking as Metal3 and airshipctl write it: OpenStack-style network_data (links with
 * MACs, networks with an address, netmask and routes) in a BareMetalHost's networkData Secret,
 * and the NetworkCatalogue's `commonHostNetworking` with the host catalogue's per-host
 * `macAddresses`/`ipAddresses` keyed by link and network id. Checks that the pieces agree: a
 * gateway inside its subnet, a boot MAC on a link, catalogue keys that name a link or network.
 */
import { isRecord, loadYaml, scalarText } from '../../krm/index.js';
import { cidrContains, type Cidr, formatCidr, netmaskPrefix, parseCidr, parseIp } from '../../model/ip.js';
import type { Tree } from '../context.js';

export interface NetworkDataLink {
  index: number;
  id?: string;
  mac?: string;
}

export interface NetworkDataNetwork {
  index: number;
  /** network_id, id or link, else the index */
  id: string;
  address?: string;
  netmask?: string;
  gateways: { index: number; gateway: string }[];
}

export interface NetworkData {
  /** `stringData.networkData`, `data.network_data.json` ...: where the document is */
  field: string;
  links: NetworkDataLink[];
  networks: NetworkDataNetwork[];
}

const KEYS = ['networkData', 'network_data.json', 'network_data', 'value'];

/** The network_data document a Secret holds (JSON or YAML, plain in stringData or base64 in data). */
export function networkDataText(secret: Tree): { text: string; field: string } | undefined {
  const sd = isRecord(secret.stringData) ? secret.stringData : {};
  const dd = isRecord(secret.data) ? secret.data : {};
  for (const k of KEYS) {
    if (typeof sd[k] === 'string') return { text: sd[k], field: `stringData.${k}` };
    const d = dd[k];
    if (typeof d === 'string' && !d.startsWith('ENC[')) return { text: Buffer.from(d, 'base64').toString('utf8'), field: `data.${k}` };
  }
  return undefined;
}

function parseDocument(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return loadYaml(text);
    } catch {
      return undefined;
    }
  }
}

function routeGateways(n: Tree): NetworkDataNetwork['gateways'] {
  const routes = Array.isArray(n.routes) ? n.routes : [];
  const out: NetworkDataNetwork['gateways'] = [];
  routes.forEach((r, index) => {
    const gateway = isRecord(r) ? scalarText(r.gateway) : undefined;
    if (gateway) out.push({ index, gateway });
  });
  return out;
}

/** Links and networks of a network_data document; undefined when it is not one. */
export function readNetworkData(text: string, field: string): NetworkData | undefined {
  const nd = parseDocument(text);
  if (!isRecord(nd)) return undefined;
  const links: NetworkDataLink[] = [];
  (Array.isArray(nd.links) ? nd.links : []).forEach((l, index) => {
    if (isRecord(l)) links.push({ index, id: scalarText(l.id), mac: scalarText(l.ethernet_mac_address) });
  });
  const networks: NetworkDataNetwork[] = [];
  (Array.isArray(nd.networks) ? nd.networks : []).forEach((n, index) => {
    if (!isRecord(n)) return;
    const id = scalarText(n.network_id) ?? scalarText(n.id) ?? scalarText(n.link) ?? String(index);
    networks.push({ index, id, address: scalarText(n.ip_address), netmask: scalarText(n.netmask), gateways: routeGateways(n) });
  });
  return { field, links, networks };
}

/** The subnet of an address with a netmask (`255.255.255.0`, `64`) or a prefix in the address (`10.0.0.5/24`). */
function subnetOf(address: string, netmask: string | undefined): Cidr | undefined {
  const [ip, prefixText] = address.split('/');
  const prefix = prefixText !== undefined ? Number(prefixText) : netmask !== undefined ? netmaskPrefix(netmask) : undefined;
  if (!ip || prefix === undefined || !Number.isInteger(prefix) || !parseIp(ip)) return undefined;
  return parseCidr(`${ip}/${prefix}`, { strict: false });
}

/**
 * Gateways that lie outside the subnet of `address`: a host cannot reach them without a route
 * that the same document does not give. A default route's `0.0.0.0` is not a gateway.
 */
export function gatewaysOutside(
  address: string | undefined,
  netmask: string | undefined,
  gateways: { index: number; gateway: string }[],
): { index: number; gateway: string; subnet: string }[] {
  if (!address) return [];
  const subnet = subnetOf(address, netmask);
  if (!subnet) return [];
  const out: { index: number; gateway: string; subnet: string }[] = [];
  for (const g of gateways) {
    const ip = parseIp(g.gateway);
    if (!ip || ip.n === 0n || ip.family !== subnet.family) continue;
    if (!cidrContains(subnet, ip)) out.push({ ...g, subnet: formatCidr(subnet) });
  }
  return out;
}

/** The link and network ids a NetworkCatalogue's commonHostNetworking declares, with each network's netmask and gateways. */
export interface CatalogueNetworking {
  links: Set<string>;
  networks: Map<string, { netmask?: string; gateways: { index: number; gateway: string }[] }>;
}

export function readCatalogueNetworking(spec: unknown, into: CatalogueNetworking): void {
  const common = isRecord(spec) && isRecord(spec.commonHostNetworking) ? spec.commonHostNetworking : undefined;
  if (!common) return;
  for (const l of Array.isArray(common.links) ? common.links : []) {
    const id = isRecord(l) ? scalarText(l.id) : undefined;
    if (id) into.links.add(id);
  }
  for (const n of Array.isArray(common.networks) ? common.networks : []) {
    const id = isRecord(n) ? scalarText(n.id) : undefined;
    if (id && isRecord(n)) into.networks.set(id, { netmask: scalarText(n.netmask), gateways: routeGateways(n) });
  }
}
