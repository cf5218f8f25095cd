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
  bootMethod?: 'virtualmedia' | 'ipxe';
  rootDeviceMinGiB?: number;
  hardwareData?: boolean;
  hostCatalogue?: boolean;
  hostCatalogueName?: string;
  hardwareProfile?: string;
  labels?: Record<string, string>;
}

export const OWNER_DISCOVER = 'bmh-from-redfish/discover';
export const OWNER_GENERATE = 'bmh-from-redfish/generate';

/** `Foo Bar_1.` -> `foo-bar-1` (DNS-1123 label-ish, <= 63). */
export function dnsName(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
    .slice(0, 63)
    .replace(/[^a-z0-9]+$/, '');
}

/** natural order: `2` < `10` */
export { naturalCompare } from '../../src/model/host-policy.js';
