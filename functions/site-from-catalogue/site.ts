/**
 * A new site from a type (`airshipctl document init`, airshipctl issue #256): the site's
 * metadata.yaml, catalogues, one folder per phase whose kustomization.yaml points at the type
 * and lists the hosts of that phase, and the Phase documents. What is left to decide is reported
 * as info results instead of NEWSITE_CHANGEME markers.
 */
import { posix } from 'node:path';
import { KubeObject, type Context, type Desired } from '../../src/krm/index.js';
import { planHosts } from './generate.js';
import { isMap, readInputs, type Json } from './inputs.js';
import type { SitePhase, Spec } from './spec.js';

const DEFAULT_PHASES: SitePhase[] = [
  { path: 'target/initinfra-networking' },
  { path: 'target/initinfra' },
  { path: 'target/controlplane', hosts: 'controlPlane' },
  { path: 'target/workers', hosts: 'workers' },
  { path: 'target/workload' },
];

function kustomization(name: string, body: Json): Json {
  return { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', metadata: { name }, ...body };
}

export function generateSite<S>(ctx: Context<S>, spec: Spec): void {
  const site = spec.site!;
  const root = (site.root ?? 'manifests/site').replace(/\/+$/, '');
  const base = posix.normalize(site.dir ?? '.');
  const at = (p: string) => (base === '.' ? p : posix.join(base, p));
  const phases = site.phases ?? DEFAULT_PHASES;
  const ns = spec.namespace ?? 'target-infra';
  const before = ctx.results.count('error');

  for (const [i, p] of phases.entries()) {
    if (p.path.startsWith('/') || posix.normalize(p.path).startsWith('..') || p.path === 'phases' || p.path.startsWith('target/catalogues'))
      ctx.results.error(`spec.site.phases[${i}].path "${p.path}" must be a folder inside the site (and not phases/ or target/catalogues/)`, {
        field: `spec.site.phases[${i}].path`,
        rule: 'site/bad-phase-path',
      });
  }
  // catalogues from the functionConfig; credentials are stripped before they are written
  const catalogueObjects: KubeObject[] = [];
  const catalogueDocs: { data: Json; file: string }[] = [];
  const seenFiles = new Set<string>();
  for (const [i, c] of (site.catalogues ?? []).entries()) {
    const md = isMap(c.metadata) ? c.metadata : {};
    if (typeof c.kind !== 'string' || typeof c.apiVersion !== 'string' || typeof md.name !== 'string') {
      ctx.results.error(`spec.site.catalogues[${i}] needs apiVersion, kind and metadata.name`, { field: `spec.site.catalogues[${i}]`, rule: 'site/bad-catalogue' });
      continue;
    }
    catalogueObjects.push(KubeObject.fromData(c));
    const data = JSON.parse(JSON.stringify(c)) as Json;
    const m3 = isMap(data.hosts) && isMap(data.hosts.m3) ? data.hosts.m3 : undefined;
    if (m3)
      for (const h of Object.values(m3))
        if (isMap(h)) {
          delete h.bmcPassword;
          delete h.bmcUsername;
        }
    let file = `${String(md.name)}.yaml`;
    if (seenFiles.has(file)) file = `${String(md.name)}-${String(c.kind).toLowerCase()}.yaml`;
    seenFiles.add(file);
    catalogueDocs.push({ data, file });
  }
  if (ctx.results.count('error') !== before) return;

  const hostSpec: Spec = { ...spec, roles: spec.roles ?? { controlPlane: { count: 1 }, workers: {} } };
  if (!spec.roles)
    ctx.results.info('spec.roles not set: the first host (by name) is the control plane, the others are workers; set spec.roles to choose', {
      field: 'spec.roles',
      rule: 'site/decide-roles',
    });
  const inputs = readInputs(ctx, catalogueObjects);
  const plan = planHosts(ctx, hostSpec, inputs);
  if (!plan.ok) return;

  const desired: Desired[] = [];
  const siteRoot = `${root}/${site.name}`;
  desired.push({
    data: {
      apiVersion: 'airshipit.org/v1alpha1',
      kind: 'ManifestMetadata',
      metadata: { name: 'manifest-metadata' },
      spec: { phase: { path: `${siteRoot}/phases`, docEntryPointPrefix: siteRoot }, inventory: { path: `${siteRoot}/host-inventory` } },
    },
    path: at('metadata.yaml'),
  });
  desired.push({ data: kustomization(site.name, { resources: ['metadata.yaml'] }), path: at('kustomization.yaml') });
  for (const c of catalogueDocs) desired.push({ data: c.data, path: at(`target/catalogues/${c.file}`) });
  if (catalogueDocs.length)
    desired.push({
      data: kustomization(`${site.name}-target-catalogues`, { resources: catalogueDocs.map((c) => c.file) }),
      path: at('target/catalogues/kustomization.yaml'),
    });

  const placed = new Set<string>();
  const phaseDocs: Json[] = [];
  for (const p of phases) {
    const dir = posix.normalize(p.path).replace(/\/+$/, '');
    const depth = dir.split('/').length;
    const typeRef = posix.normalize(posix.join('../'.repeat(depth), site.type, dir));
    const hosts = p.hosts && p.hosts !== 'none' ? plan.hosts.filter((h) => h.role === p.hosts && !placed.has(h.name)) : [];
    const resources = [typeRef, ...hosts.map((h) => `hosts/${h.name}.yaml`)];
    const body: Json = { resources };
    if (hosts.length) body.namespace = ns;
    desired.push({ data: kustomization(`${site.name}-${dir.replace(/\//g, '-')}`, body), path: at(`${dir}/kustomization.yaml`) });
    for (const h of hosts) {
      placed.add(h.name);
      for (const d of h.docs) desired.push({ data: d, path: at(`${dir}/hosts/${h.name}.yaml`) });
    }
    const parts = dir.split('/');
    const phaseName = p.phaseName ?? (parts.length > 1 ? `${parts[parts.length - 1]}-${parts[0]}` : parts[0]!);
    phaseDocs.push({
      apiVersion: 'airshipit.org/v1alpha1',
      kind: 'Phase',
      metadata: { name: phaseName },
      config: { executorRef: { apiVersion: 'airshipit.org/v1alpha1', kind: 'KubernetesApply', name: 'kubernetes-apply' }, documentEntryPoint: `${siteRoot}/${dir}` },
    });
  }
  for (const d of phaseDocs) desired.push({ data: d, path: at('phases/phases.yaml') });
  desired.push({ data: kustomization(`${site.name}-phases`, { resources: ['phases.yaml'] }), path: at('phases/kustomization.yaml') });
  ctx.reconcile('site-from-catalogue/site', desired);

  // what the operator still has to decide
  const unplaced = plan.hosts.filter((h) => !placed.has(h.name)).map((h) => h.name);
  if (unplaced.length)
    ctx.results.info(`host(s) ${unplaced.join(', ')} are in no phase: give a phase \`hosts: controlPlane\` or \`hosts: workers\`, or change spec.roles`, {
      field: 'spec.site.phases',
      rule: 'site/decide-unplaced-hosts',
    });
  ctx.results.info(
    `the type's phase plan is not included: add \`${posix.normalize(posix.join('..', site.type, 'phases'))}\` to phases/kustomization.yaml resources once its Phase documents fit this site, and an executor for each Phase`,
    { field: 'spec.site.type', rule: 'site/decide-phase-plan' },
  );
  const nc = inputs.networkCatalogues;
  const endpoint = nc.some((o) => {
    const h = o.get('spec.kubernetes.controlPlaneEndpoint.host');
    return typeof h === 'string' && h !== '';
  });
  if (!endpoint)
    ctx.results.info('no kubernetes.controlPlaneEndpoint.host in the NetworkCatalogue: choose the API server address (a VIP or the first control plane host)', {
      rule: 'site/decide-endpoint',
    });
}
