/**
 * A new site from a type (`airshipctl document init`, airshipctl issue #256): the site's
 * metadata.yaml, catalogues, host-inventory/, one folder per phase whose kustomization.yaml points
 * at the type and lists the hosts of that phase (a host may be in several phases: reconcile byPath),
 * and the phase plan (generated, or the type's referenced). What is left to decide is reported as
 * info results instead of NEWSITE_CHANGEME markers.
 */
import { posix } from 'node:path';
import { KubeObject, type Context, type Desired } from '../../src/krm/index.js';
import { planHosts, type RenderedHost } from './generate.js';
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
    const n = posix.normalize(p.path).replace(/\/+$/, '');
    if (p.path.startsWith('/') || n.startsWith('..') || n === '.' || /^(phases|host-inventory|target\/catalogues)(\/|$)/.test(n))
      ctx.results.error(
        `spec.site.phases[${i}].path "${p.path}" must be a folder inside the site (and not phases/, host-inventory/ or target/catalogues/)`,
        {
          field: `spec.site.phases[${i}].path`,
          rule: 'site/bad-phase-path',
        },
      );
  }
  // catalogues from the functionConfig; credentials are stripped before they are written
  const catalogueObjects: KubeObject[] = [];
  const catalogueDocs: { data: Json; file: string }[] = [];
  const seenFiles = new Set<string>();
  for (const [i, c] of (site.catalogues ?? []).entries()) {
    const md = isMap(c.metadata) ? c.metadata : {};
    if (typeof c.kind !== 'string' || typeof c.apiVersion !== 'string' || typeof md.name !== 'string') {
      ctx.results.error(`spec.site.catalogues[${i}] needs apiVersion, kind and metadata.name`, {
        field: `spec.site.catalogues[${i}]`,
        rule: 'site/bad-catalogue',
      });
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
    ctx.results.info(
      'spec.roles not set: the first host (by name) is the control plane, the others are workers; set spec.roles to choose',
      {
        field: 'spec.roles',
        rule: 'site/decide-roles',
      },
    );
  const inputs = readInputs(ctx, catalogueObjects);
  const plan = planHosts(ctx, hostSpec, inputs);
  if (!plan.ok) return;

  // which hosts each phase deploys; a host may be in several phases (written into each folder)
  const phaseHosts: RenderedHost[][] = [];
  const known = new Map(plan.hosts.map((h) => [h.name, h]));
  for (const [i, p] of phases.entries()) {
    const sel = p.hosts ?? 'none';
    let hosts: RenderedHost[] = [];
    if (Array.isArray(sel)) {
      for (const [j, n] of sel.entries()) {
        const h = known.get(n);
        if (h) hosts.push(h);
        else
          ctx.results.error(
            `spec.site.phases[${i}].hosts[${j}]: host "${n}" is not one of the site's hosts (${[...known.keys()].join(', ') || 'none'})`,
            {
              field: `spec.site.phases[${i}].hosts[${j}]`,
              rule: 'site/unknown-host',
            },
          );
      }
    } else if (sel !== 'none') hosts = plan.hosts.filter((h) => h.role === sel);
    if (p.count !== undefined) {
      if (Array.isArray(sel) || sel === 'none')
        ctx.results.error(`spec.site.phases[${i}].count needs hosts: controlPlane or workers; remove count or set hosts`, {
          field: `spec.site.phases[${i}].count`,
          rule: 'site/bad-phase',
        });
      else if (hosts.length < p.count)
        ctx.results.error(
          `spec.site.phases[${i}] (${p.path}) wants ${p.count} ${sel} host(s) but the site has ${hosts.length}: lower count or raise spec.roles.${sel}`,
          {
            field: `spec.site.phases[${i}].count`,
            rule: 'site/bad-phase',
          },
        );
      hosts = hosts.slice(0, p.count);
    }
    phaseHosts.push(hosts);
  }
  const dirs = phases.map((p) => posix.normalize(p.path).replace(/\/+$/, ''));
  const dupDir = dirs.find((d, i) => dirs.indexOf(d) !== i);
  if (dupDir)
    ctx.results.error(`spec.site.phases: folder ${dupDir} is listed twice`, { field: 'spec.site.phases', rule: 'site/bad-phase-path' });
  if (ctx.results.count('error') !== before) return;

  const desired: Desired[] = [];
  const siteRoot = `${root}/${site.name}`;
  const hostDocs = (h: RenderedHost, file: string) => h.docs.map((d) => ({ data: structuredClone(d), path: at(file) }));
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

  // host-inventory: every host (ManifestMetadata spec.inventory.path, read by `airshipctl baremetal`)
  const inventoryBody: Json = { resources: plan.hosts.map((h) => `hosts/${h.name}.yaml`) };
  if (plan.hosts.length) inventoryBody.namespace = ns;
  desired.push({ data: kustomization(`${site.name}-host-inventory`, inventoryBody), path: at('host-inventory/kustomization.yaml') });
  for (const h of plan.hosts) desired.push(...hostDocs(h, `host-inventory/hosts/${h.name}.yaml`));

  const placed = new Set<string>();
  const phaseDocs: Json[] = [];
  for (const [i, p] of phases.entries()) {
    const dir = dirs[i]!;
    const depth = dir.split('/').length;
    const typeRef = posix.normalize(posix.join('../'.repeat(depth), site.type, dir));
    const hosts = phaseHosts[i]!;
    const body: Json = { resources: [typeRef, ...hosts.map((h) => `hosts/${h.name}.yaml`)] };
    if (hosts.length) body.namespace = ns;
    desired.push({ data: kustomization(`${site.name}-${dir.replace(/\//g, '-')}`, body), path: at(`${dir}/kustomization.yaml`) });
    for (const h of hosts) {
      placed.add(h.name);
      desired.push(...hostDocs(h, `${dir}/hosts/${h.name}.yaml`));
    }
    const parts = dir.split('/');
    const phaseName = p.phaseName ?? (parts.length > 1 ? `${parts[parts.length - 1]}-${parts[0]}` : parts[0]!);
    phaseDocs.push({
      apiVersion: 'airshipit.org/v1alpha1',
      kind: 'Phase',
      metadata: { name: phaseName, clusterName: p.clusterName ?? `${parts[0]}-cluster` },
      // relative to ManifestMetadata docEntryPointPrefix, as airshipctl's manifests/phases/phases.yaml
      config: { executorRef: { apiVersion: 'airshipit.org/v1alpha1', kind: 'KubernetesApply', name: EXECUTOR }, documentEntryPoint: dir },
    });
  }

  // the phase plan: the type's (referenced), or one generated from the phase folders
  const fromType = site.phasePlan?.fromType;
  const clusters = [...new Set(phaseDocs.map((d) => String((d.metadata as Json).clusterName)))];
  if (fromType !== undefined) {
    const ref = posix.normalize(posix.join('..', site.type, fromType));
    desired.push({ data: kustomization(`${site.name}-phases`, { resources: [ref] }), path: at('phases/kustomization.yaml') });
    ctx.results.info(
      `phases/ uses the type's phase plan (${ref}): its Phase documents' documentEntryPoint must be folders of this site (written: ${dirs.join(', ')}); check them, and add the site's ClusterMap and kubeconfig for its clusters`,
      { field: 'spec.site.phasePlan.fromType', rule: 'site/decide-phase-plan' },
    );
  } else {
    const planName = site.phasePlan?.name ?? `deploy-${site.name}`;
    desired.push({
      data: {
        apiVersion: 'airshipit.org/v1alpha1',
        kind: 'PhasePlan',
        metadata: { name: planName },
        description: `Phase plan for ${site.name} deployment`,
        phases: phaseDocs.map((d) => ({ name: (d.metadata as Json).name })),
      },
      path: at('phases/plan.yaml'),
    });
    for (const d of phaseDocs) desired.push({ data: d, path: at('phases/phases.yaml') });
    desired.push({ data: executor(), path: at('phases/executors.yaml') });
    desired.push({
      data: kustomization(`${site.name}-phases`, { resources: ['executors.yaml', 'phases.yaml', 'plan.yaml'] }),
      path: at('phases/kustomization.yaml'),
    });
    ctx.results.info(
      `phases/plan.yaml (PhasePlan ${planName}) applies the ${phaseDocs.length} phase folders in the order of spec.site.phases with the KubernetesApply executor ${EXECUTOR}; add wait/helper phases where the type needs them, or set spec.site.phasePlan.fromType to use the type's plan. The phases target cluster(s) ${clusters.join(', ')}: add the site's ClusterMap and kubeconfig`,
      { field: 'spec.site.phasePlan', rule: 'site/decide-phase-plan' },
    );
  }
  ctx.reconcile('site-from-catalogue/site', desired, { byPath: true });

  // what the operator still has to decide
  const unplaced = plan.hosts.filter((h) => !placed.has(h.name)).map((h) => h.name);
  if (unplaced.length)
    ctx.results.info(
      `host(s) ${unplaced.join(', ')} are in no phase (only in host-inventory/): give a phase \`hosts: controlPlane\`, \`hosts: workers\` or their names, or change spec.roles`,
      {
        field: 'spec.site.phases',
        rule: 'site/decide-unplaced-hosts',
      },
    );
  const nc = inputs.networkCatalogues;
  const endpoint = nc.some((o) => {
    const h = o.get('spec.kubernetes.controlPlaneEndpoint.host');
    return typeof h === 'string' && h !== '';
  });
  if (!endpoint)
    ctx.results.info(
      'no kubernetes.controlPlaneEndpoint.host in the NetworkCatalogue: choose the API server address (a VIP or the first control plane host)',
      {
        rule: 'site/decide-endpoint',
      },
    );
}

const EXECUTOR = 'kubernetes-apply';

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
