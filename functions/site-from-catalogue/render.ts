/** One host's documents as the hostgenerator-m3 template writes them: BareMetalHost, BMC Secret (emit only), network-data Secret. */
import type { Context } from '../../src/krm/index.js';
import { isRecord } from '../../src/krm/index.js';
import { sortedKeys } from './goyaml.js';
import type { HostEntry } from './host-entry.js';
import { type Host, type Json, type Networking, type Profile, ROLE_LABEL } from './inputs.js';
import { renderNetworkData } from './network-data.js';
import { type Role, roleLabel } from './roles.js';

export const SOPS_ANNOTATION = 'baremetal-krm.dev/sops-encrypted-regex';

interface HostToRender {
  host: Host;
  entry: HostEntry;
  profile: Profile;
  role?: Role;
  /** address per network id */
  addresses: Record<string, string>;
  credentialsName: string;
}

function truthy(v: unknown): boolean {
  // Go template truth: non-empty map/list/string, non-zero
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isRecord(v)) return Object.keys(v).length > 0;
  return true;
}

/** The catalogue labels, with the role label when the host has a role (a different catalogue one is replaced, with a warning). */
function hostLabels<S>(ctx: Context<S>, r: HostToRender): Record<string, string> {
  const labels = { ...r.entry.labels };
  if (!r.role) return labels;
  const value = roleLabel(r.role);
  if (labels[ROLE_LABEL] !== undefined && labels[ROLE_LABEL] !== value)
    ctx.results.warning(
      `host ${r.host.name}: catalogue label ${ROLE_LABEL}=${labels[ROLE_LABEL]} replaced by ${value}, the host's role (spec.roles, or the site phase that lists it)`,
      {
        object: r.host.source,
        field: `${r.host.field}.labels`,
        rule: 'roles/label-replaced',
      },
    );
  labels[ROLE_LABEL] = value;
  return labels;
}

export function renderHost<S>(ctx: Context<S>, r: HostToRender, net: Networking, ns: string, emitSecret: boolean): Json[] {
  const { host: h, entry: e } = r;
  const labels = hostLabels(ctx, r);
  const metadata: Json = { annotations: {} };
  if (Object.keys(labels).length) metadata.labels = sortedKeys(labels);
  metadata.name = h.name;
  metadata.namespace = ns;
  const bmhSpec: Json = { online: false, bootMACAddress: e.macAddress, bootMode: e.bootMode };
  bmhSpec.networkData = { name: `${h.name}-network-data`, namespace: ns };
  bmhSpec.bmc = {
    address: e.bmcAddress,
    credentialsName: r.credentialsName,
    disableCertificateVerification: e.disableCertificateVerification,
  };
  if (truthy(r.profile.firmware)) bmhSpec.firmware = sortedKeys(r.profile.firmware);
  if (truthy(r.profile.raid)) bmhSpec.raid = sortedKeys(r.profile.raid);
  const docs: Json[] = [{ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata, spec: bmhSpec }];
  if (emitSecret) {
    const b64 = (v: string | undefined) => Buffer.from(v ?? '', 'utf8').toString('base64');
    docs.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { annotations: { [SOPS_ANNOTATION]: '^(data)$' }, name: r.credentialsName, namespace: ns },
      data: { username: b64(e.bmcUsername), password: b64(e.bmcPassword) },
      type: 'Opaque',
    });
  }
  docs.push({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { annotations: {}, name: `${h.name}-network-data`, namespace: ns },
    stringData: { networkData: renderNetworkData(net, e.macAddresses, r.addresses) },
    type: 'Opaque',
  });
  return docs;
}
