/**
 * site-from-catalogue: airshipctl catalogues (and HardwareInventory) in, Metal3 BareMetalHosts,
 * BMC and network-data Secrets out, or a whole new site skeleton; `mode: distil` goes back.
 */
import { posix } from 'node:path';
import { type FunctionDefinition, type JsonSchema, lazy } from '../../src/krm/index.js';
import validateSpec from './generated/spec.validate.js';
import { planHosts } from './generate.js';
import { readInputs } from './inputs.js';
import { distil } from './distil.js';
import { warnPlaintextSecrets } from './credentials.js';
import { generateSite } from './site.js';
import { reconcileDiscovery } from './discovery.js';
import { sopsBmcSecrets } from './sops-secrets.js';
import type { Spec } from './spec.js';

export const OWNER = 'site-from-catalogue';

/** The spec's JSON schema, for --help and the docs only: not built at every start. */
const specSchema = lazy(() => require('./spec.schema.json') as JsonSchema, './spec.schema.json', import.meta.url);

export const definition: FunctionDefinition<Spec> = {
  name: 'site-from-catalogue',
  configKind: 'SiteFromCatalogue',
  summary:
    'generates Metal3 BareMetalHosts, BMC and network-data Secrets from airshipctl host/network catalogues and HardwareInventory (as the hostgenerator-m3 template, failing loudly), allocates IPs stably, writes new sites from a type, and distils a rendered site back into catalogues',
  get specSchema() {
    return specSchema();
  },
  validateSpec,
  moreHelp: [
    'Rules (tags.rule): catalogue/* (catalogue/bad-host-name: a host name that is no DNS-1123 name), hosts/unknown-host, host/missing-field, host/bad-mac, host/bad-ip, host/bad-field,',
    'host/bad-bmc-address, host/credentials-in-address, host/unknown-link, host/unknown-network, host/unknown-profile,',
    'host/empty-profile, host/missing-ip, host/duplicate-mac, ipam/*, network/*, roles/*, credentials/plaintext,',
    'credentials/plaintext-secret, credentials/to-create, credentials/missing, credentials/no-recipients, credentials/bad-recipient,',
    'credentials/cannot-reencrypt, credentials/sops, credentials/encrypted, credentials/kept, inventory/*, distil/*, site/*.',
    'Roles: spec.roles.controlPlane / workers name hosts ({hosts: [node04, node05]}) or choose them ({count, selector,',
    'hardwareProfile}); without spec.roles a new site (spec.site) labels hosts by the phases that list them.',
    'credentials.mode sops: credentials from env BMC_USERNAME / BMC_PASSWORD, BMC_<HOST>_USERNAME / _PASSWORD or BMC_CREDENTIALS_FILE;',
    'age recipients from spec, SOPS_AGE_RECIPIENTS or SOPS_CONFIG; an identity (SOPS_AGE_KEY_FILE, SOPS_AGE_KEY) lets re-renders compare.',
  ].join('\n'),
  run(ctx) {
    const spec = ctx.spec;
    warnPlaintextSecrets(ctx);
    if (spec.mode === 'distil') {
      distil(ctx, spec);
      return;
    }
    if (spec.site) {
      generateSite(ctx, spec);
      if (!ctx.results.hasErrors) reconcileDiscovery(ctx, spec, OWNER);
      return;
    }
    const inputs = readInputs(ctx);
    const plan = planHosts(ctx, spec, inputs);
    if (!plan.ok) return; // nothing half-written: previous output stays as it is
    const dir = (spec.outputDir ?? 'hosts').replace(/\/+$/, '');
    // a host named by host-generation lists in several folders is written into each: the file
    // is part of the identity (reconcile byPath)
    const desired = plan.hosts.flatMap((h) =>
      h.folders.flatMap((f) => h.docs.map((data) => ({ data: structuredClone(data), path: posix.join(f, dir, `${h.name}.yaml`) }))),
    );
    if (spec.credentials?.mode !== 'sops') {
      ctx.reconcile(`${OWNER}/hosts`, desired, { byPath: true });
      reconcileDiscovery(ctx, spec, OWNER);
      return;
    }
    // the encrypted BMC Secrets (async: age), each in its own file beside its host
    return sopsBmcSecrets(ctx, spec, plan.hosts, `${OWNER}/hosts`).then((secrets) => {
      if (!secrets) return;
      ctx.reconcile(`${OWNER}/hosts`, [...desired, ...secrets], { byPath: true });
      reconcileDiscovery(ctx, spec, OWNER);
    });
  },
};
