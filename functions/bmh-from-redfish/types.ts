import { toDnsSubdomain } from '../../src/model/dns-name.js';

export interface BmcEntry {
  address: string;
  name?: string;
  systemId?: string;
  labels?: Record<string, string>;
  credentialsSecret?: string;
  insecureSkipVerify?: boolean;
  caFile?: string;
  bootMACAddress?: string;
  profile?: string;
}

export interface RangeEntry {
  cidr: string;
  port?: number;
  scheme?: 'https' | 'http';
  insecureSkipVerify?: boolean;
  credentialsSecret?: string;
  profile?: string;
}

export interface Spec {
  mode?: 'generate' | 'discover';
  bmcs?: BmcEntry[];
  ranges?: RangeEntry[];
  concurrency?: number;
  requestsPerBmc?: number;
  timeoutSeconds?: number;
  bmcDeadlineSeconds?: number;
  retries?: number;
  auth?: 'basic' | 'session';
  expand?: boolean;
  credentialsFile?: string;
  nameTemplate?: string;
  namespace?: string;
  online?: boolean;
  bootMethod?: 'virtualmedia' | 'ipxe' | 'uefihttp';
  rootDeviceMinGiB?: number;
  hardwareData?: boolean;
  hostCatalogue?: boolean;
  hostCatalogueName?: string;
  hardwareProfile?: string;
  labels?: Record<string, string>;
}

export const OWNER_DISCOVER = 'bmh-from-redfish/discover';
export const OWNER_GENERATE = 'bmh-from-redfish/generate';

/** A host name as a BareMetalHost name: a DNS-1123 subdomain of at most 63 characters ('' when nothing is left). */
export function dnsName(s: string): string {
  return toDnsSubdomain(s, { max: 63 });
}

/** natural order: `2` < `10` */
export { naturalCompare } from '../../src/model/host-policy.js';
