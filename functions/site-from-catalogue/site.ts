/**
 * A new site from a type (`airshipctl document init`, airshipctl issue #256): the site's
 * metadata.yaml, catalogues, host-inventory/, one folder per phase whose kustomization.yaml points
 * at the type and lists the hosts of that phase (a host may be in several phases: reconcile byPath),
 * and the phase plan (generated, or the type's referenced). What is left to decide is reported as
 * info results instead of NEWSITE_CHANGEME markers.
 */
import { posix } from 'node:path';
import { type Context, type Desired, isRecord, KubeObject } from '../../src/krm/index.js';
import { planHosts, type RenderedHost } from './generate.js';
import { type Json, readInputs } from './inputs.js';
import { checkRolePlacement, pinnedRoles, reportRoleDecision, siteRoleRules } from './site-roles.js';
import { checkTypeFolders } from './site-type.js';
import type { SitePhase, Spec } from './spec.js';
import { pushAll } from '../../src/krm/index.js';

const DEFAULT_PHASES: SitePhase[] = [
  { path: 'target/initinfra-networking' },
  { path: 'target/initinfra' },
  { path: 'target/controlplane', hosts: 'controlPlane' },
  { path: 'target/workers', hosts: 'workers' },
  { path: 'target/workload' },
];

const EXECUTOR = 'kubernetes-apply';

type Site = NonNullable<Spec['site']>;

/** Where the site's files go and what they are called. */
interface Layout {
  site: Site;
  phases: SitePhase[];
  /** phase folders, normalised, in phase order */
  dirs: string[];
  ns: string;
  /** a path of the site, relative to the package */
  at: (p: string) => string;
}

function kustomization(name: string, body: Json): Json {
  return { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', metadata: { name }, ...body };
}

export function generateSite<S>(ctx: Context<S>, spec: Spec): void {
  const site = spec.site!;
  const base = posix.normalize(site.dir ?? '.');
  const phases = site.phases ?? DEFAULT_PHASES;
  const layout: Layout = {
    site,
    phases,
    dirs: phases.map((p) => posix.normalize(p.path).replace(/\/+$/, '')),
    ns: spec.namespace ?? 'target-infra',
    at: (p) => (base === '.' ? p : posix.join(base, p)),
  };
  const before = ctx.results.count('error');
  const ok = () => ctx.results.count('error') === before;
  checkPhasePaths(ctx, layout);
  const catalogues = siteCatalogues(ctx, site);
  if (!ok()) return;
  const pinned = pinnedRoles(ctx, phases);
  if (!ok()) return;
  const inputs = readInputs(ctx, catalogues.objects);
  // without spec.roles, the roles follow the phases (placed hosts first, then what the phases select)
  const hostSpec = spec.roles ? spec : { ...spec, roles: siteRoleRules(phases, pinned) };
  const placed = new Map([...pinned].map(([name, p]) => [name, p.role]));
  const plan = planHosts(ctx, hostSpec, inputs, { pinnedRoles: spec.roles ? undefined : placed });
  if (!plan.ok) return;
  if (spec.roles) checkRolePlacement(ctx, phases, pinned, plan.hosts);
  const phaseHosts = phases.map((p, i) => hostsOfPhase(ctx, p, i, plan.hosts));
  checkDuplicateDirs(ctx, layout);
  checkTypeFolders(ctx, site, layout.dirs, base);
  if (!ok()) return;
  const desired = [...siteRoot(layout, catalogues.docs, plan.hosts), ...phaseFolders(layout, phaseHosts), ...phasePlan(ctx, layout)];
  ctx.reconcile('site-from-catalogue/site', desired, { byPath: true });
  if (!spec.roles) reportRoleDecision(ctx, phases, pinned, plan.hosts);
  decideRest(ctx, plan.hosts, phaseHosts, inputs.networkCatalogues);
}

function checkPhasePaths<S>(ctx: Context<S>, layout: Layout): void {
  for (const [i, p] of layout.phases.entries()) {
    const n = layout.dirs[i]!;
    if (p.path.startsWith('/') || n.startsWith('..') || n === '.' || /^(phases|host-inventory|target\/catalogues)(\/|$)/.test(n))
      ctx.results.error(
        `spec.site.phases[${i}].path "${p.path}" must be a folder inside the site (and not phases/, host-inventory/ or target/catalogues/)`,
        { field: `spec.site.phases[${i}].path`, rule: 'site/bad-phase-path' },
      );
  }
}

function checkDuplicateDirs<S>(ctx: Context<S>, layout: Layout): void {
  const dup = layout.dirs.find((d, i) => layout.dirs.indexOf(d) !== i);
  if (dup) ctx.results.error(`spec.site.phases: folder ${dup} is listed twice`, { field: 'spec.site.phases', rule: 'site/bad-phase-path' });
}

/** Catalogues from the functionConfig: as objects for generation, and as documents to write with credentials stripped. */
function siteCatalogues<S>(ctx: Context<S>, site: Site): { objects: KubeObject[]; docs: { data: Json; file: string }[] } {
  const objects: KubeObject[] = [];
  const docs: { data: Json; file: string }[] = [];
  const seenFiles = new Set<string>();
  for (const [i, c] of (site.catalogues ?? []).entries()) {
    const md = isRecord(c.metadata) ? c.metadata : {};
    if (typeof c.kind !== 'string' || typeof c.apiVersion !== 'string' || typeof md.name !== 'string') {
      ctx.results.error(`spec.site.catalogues[${i}] needs apiVersion, kind and metadata.name`, {
        field: `spec.site.catalogues[${i}]`,
        rule: 'site/bad-catalogue',
      });
      continue;
    }
    objects.push(KubeObject.fromData(c));
    const data = structuredClone(c) as Json;
    const m3 = isRecord(data.hosts) && isRecord(data.hosts.m3) ? data.hosts.m3 : undefined;
    for (const h of Object.values(m3 ?? {}))
      if (isRecord(h)) {
        delete h.bmcPassword;
        delete h.bmcUsername;
      }
    let file = `${md.name}.yaml`;
    if (seenFiles.has(file)) file = `${md.name}-${c.kind.toLowerCase()}.yaml`;
    seenFiles.add(file);
    docs.push({ data, file });
  }
  return { objects, docs };
}

/** The hosts a phase deploys: named, or by role (the first `count`). */
function hostsOfPhase<S>(ctx: Context<S>, p: SitePhase, i: number, all: RenderedHost[]): RenderedHost[] {
  const sel = p.hosts ?? 'none';
  if (Array.isArray(sel)) {
    const known = new Map(all.map((h) => [h.name, h]));
    if (p.count !== undefined)
      ctx.results.error(`spec.site.phases[${i}].count needs hosts: controlPlane or workers; remove count or set hosts`, {
        field: `spec.site.phases[${i}].count`,
        rule: 'site/bad-phase',
      });
    return sel.flatMap((n, j) => {
      const h = known.get(n);
      if (!h)
        ctx.results.error(
          `spec.site.phases[${i}].hosts[${j}]: host "${n}" is not one of the site's hosts (${[...known.keys()].join(', ') || 'none'})`,
          { field: `spec.site.phases[${i}].hosts[${j}]`, rule: 'site/unknown-host' },
        );
      return h ? [h] : [];
    });
  }
  if (sel === 'none') {
    if (p.count !== undefined)
      ctx.results.error(`spec.site.phases[${i}].count needs hosts: controlPlane or workers; remove count or set hosts`, {
        field: `spec.site.phases[${i}].count`,
        rule: 'site/bad-phase',
      });
    return [];
  }
  const hosts = all.filter((h) => h.role === sel);
  if (p.count !== undefined && hosts.length < p.count)
    ctx.results.error(
      `spec.site.phases[${i}] (${p.path}) wants ${p.count} ${sel} host(s) but the site has ${hosts.length}: lower count or raise spec.roles.${sel}`,
      { field: `spec.site.phases[${i}].count`, rule: 'site/bad-phase' },
    );
  return p.count === undefined ? hosts : hosts.slice(0, p.count);
}

function hostDocs(layout: Layout, h: RenderedHost, file: string): Desired[] {
  return h.docs.map((d) => ({ data: structuredClone(d), path: layout.at(file) }));
}

/** metadata.yaml, the root kustomization, the catalogues and host-inventory/ (every host: what `airshipctl baremetal` reads). */
function siteRoot(layout: Layout, catalogues: { data: Json; file: string }[], hosts: RenderedHost[]): Desired[] {
  const { site, at } = layout;
  const siteRootPath = `${(site.root ?? 'manifests/site').replace(/\/+$/, '')}/${site.name}`;
  const desired: Desired[] = [
    {
      data: {
        apiVersion: 'airshipit.org/v1alpha1',
        kind: 'ManifestMetadata',
        metadata: { name: 'manifest-metadata' },
        spec: {
          phase: { path: `${siteRootPath}/phases`, docEntryPointPrefix: siteRootPath },
          inventory: { path: `${siteRootPath}/host-inventory` },
        },
      },
      path: at('metadata.yaml'),
    },
    { data: kustomization(site.name, { resources: ['metadata.yaml'] }), path: at('kustomization.yaml') },
  ];
  for (const c of catalogues) desired.push({ data: c.data, path: at(`target/catalogues/${c.file}`) });
  if (catalogues.length)
    desired.push({
      data: kustomization(`${site.name}-target-catalogues`, { resources: catalogues.map((c) => c.file) }),
      path: at('target/catalogues/kustomization.yaml'),
    });
  const inventoryBody: Json = { resources: hosts.map((h) => `hosts/${h.name}.yaml`) };
  if (hosts.length) inventoryBody.namespace = layout.ns;
  desired.push({ data: kustomization(`${site.name}-host-inventory`, inventoryBody), path: at('host-inventory/kustomization.yaml') });
  for (const h of hosts) pushAll(desired, hostDocs(layout, h, `host-inventory/hosts/${h.name}.yaml`));
  return desired;
}

/** Each phase folder: a kustomization.yaml with the type's folder and the phase's host files. */
function phaseFolders(layout: Layout, phaseHosts: RenderedHost[][]): Desired[] {
  const desired: Desired[] = [];
  for (const [i, dir] of layout.dirs.entries()) {
    const typeRef = posix.normalize(posix.join('../'.repeat(dir.split('/').length), layout.site.type, dir));
    const hosts = phaseHosts[i]!;
    const body: Json = { resources: [typeRef, ...hosts.map((h) => `hosts/${h.name}.yaml`)] };
    if (hosts.length) body.namespace = layout.ns;
    desired.push({
      data: kustomization(`${layout.site.name}-${dir.replace(/\//g, '-')}`, body),
      path: layout.at(`${dir}/kustomization.yaml`),
    });
    for (const h of hosts) pushAll(desired, hostDocs(layout, h, `${dir}/hosts/${h.name}.yaml`));
  }
  return desired;
}

/** The Phase document of a phase folder: documentEntryPoint relative to the site, as airshipctl's manifests/phases/phases.yaml. */
function phaseDoc(p: SitePhase, dir: string): Json {
  const parts = dir.split('/');
  const name = p.phaseName ?? (parts.length > 1 ? `${parts[parts.length - 1]}-${parts[0]}` : parts[0]!);
  return {
    apiVersion: 'airshipit.org/v1alpha1',
    kind: 'Phase',
    metadata: { name, clusterName: p.clusterName ?? `${parts[0]}-cluster` },
    config: { executorRef: { apiVersion: 'airshipit.org/v1alpha1', kind: 'KubernetesApply', name: EXECUTOR }, documentEntryPoint: dir },
  };
}

/** The phase plan: the type's (referenced), or one generated from the phase folders. */
function phasePlan<S>(ctx: Context<S>, layout: Layout): Desired[] {
  const { site, at, dirs } = layout;
  const phaseDocs = layout.phases.map((p, i) => phaseDoc(p, dirs[i]!));
  const clusters = [...new Set(phaseDocs.map((d) => String((d.metadata as Json).clusterName)))];
  const fromType = site.phasePlan?.fromType;
  if (fromType !== undefined) {
    const ref = posix.normalize(posix.join('..', site.type, fromType));
    ctx.results.info(
      `phases/ uses the type's phase plan (${ref}): its Phase documents' documentEntryPoint must be folders of this site (written: ${dirs.join(', ')}); check them, and add the site's ClusterMap and kubeconfig for its clusters`,
      { field: 'spec.site.phasePlan.fromType', rule: 'site/decide-phase-plan' },
    );
    return [{ data: kustomization(`${site.name}-phases`, { resources: [ref] }), path: at('phases/kustomization.yaml') }];
  }
  const planName = site.phasePlan?.name ?? `deploy-${site.name}`;
  ctx.results.info(
    `phases/plan.yaml (PhasePlan ${planName}) applies the ${phaseDocs.length} phase folders in the order of spec.site.phases with the KubernetesApply executor ${EXECUTOR}; add wait/helper phases where the type needs them, or set spec.site.phasePlan.fromType to use the type's plan. The phases target cluster(s) ${clusters.join(', ')}: add the site's ClusterMap and kubeconfig`,
    { field: 'spec.site.phasePlan', rule: 'site/decide-phase-plan' },
  );
  return [
    {
      data: {
        apiVersion: 'airshipit.org/v1alpha1',
        kind: 'PhasePlan',
        metadata: { name: planName },
        description: `Phase plan for ${site.name} deployment`,
        phases: phaseDocs.map((d) => ({ name: (d.metadata as Json).name })),
      },
      path: at('phases/plan.yaml'),
    },
    ...phaseDocs.map((d) => ({ data: d, path: at('phases/phases.yaml') })),
    { data: executor(), path: at('phases/executors.yaml') },
    {
      data: kustomization(`${site.name}-phases`, { resources: ['executors.yaml', 'phases.yaml', 'plan.yaml'] }),
      path: at('phases/kustomization.yaml'),
    },
  ];
}

/** What the operator still has to decide: hosts in no phase, the API endpoint. */
function decideRest<S>(ctx: Context<S>, hosts: RenderedHost[], phaseHosts: RenderedHost[][], networkCatalogues: KubeObject[]): void {
  const placed = new Set(phaseHosts.flat().map((h) => h.name));
  const unplaced = hosts.filter((h) => !placed.has(h.name)).map((h) => h.name);
  if (unplaced.length)
    ctx.results.info(
      `host(s) ${unplaced.join(', ')} are in no phase (only in host-inventory/): give a phase \`hosts: controlPlane\`, \`hosts: workers\` or their names, or change spec.roles`,
      { field: 'spec.site.phases', rule: 'site/decide-unplaced-hosts' },
    );
  const endpoint = networkCatalogues.some((o) => {
    const h = o.get('spec.kubernetes.controlPlaneEndpoint.host');
    return typeof h === 'string' && h !== '';
  });
  if (!endpoint)
    ctx.results.info(
      'no kubernetes.controlPlaneEndpoint.host in the NetworkCatalogue: choose the API server address (a VIP or the first control plane host)',
      { rule: 'site/decide-endpoint' },
    );
}

/** The KubernetesApply executor of airshipctl's manifests/phases/executors.yaml (kubernetes-apply). */
function executor(): Json {
  return {
    apiVersion: 'airshipit.org/v1alpha1',
    kind: 'KubernetesApply',
    metadata: { labels: { 'airshipit.org/deploy-k8s': 'false' }, name: EXECUTOR },
    config: {
      waitOptions: {
        timeout: 2500,
        pollInterval: 10,
        conditions: [
          { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', jsonPath: '{.status.provisioning.state}', value: 'provisioned' },
        ],
      },
      pruneOptions: { prune: false },
    },
  };
}
