/**
 * `gates: job`: a gate step that can run unattended in a Pod becomes a Kubernetes Job in its
 * own folder, applied by its own Flux Kustomization (`wait: true`, `force: true`) in the
 * dependsOn chain. Everything else stays an explicit gate, with the reason it is not a Job.
 */
import { dotted, EMIT_OPTIONS, yamlLib, type KubeObject } from '../../src/krm/index.js';
import { forEachCredential } from '../../src/secrets/redact.js';
import type { Bundle } from './bundle.js';
import type { Step } from './steps.js';
import { isMap, str, type Data } from './model.js';

export interface JobsConfig {
  namespace: string;
  serviceAccountName?: string;
  timeout: string;
  backoffLimit: number;
  clusterctlImage?: string;
  krmEntrypoints: Record<string, string[]>;
}

export interface JobPlan {
  /** the Job, then its ConfigMap when it has one */
  objects: Data[];
  /** what the Job runs, for the report and the result */
  summary: string;
}

type JobDecision = { job: JobPlan } | { reason: string };

interface JobInputs {
  bundle: Bundle;
  /** the cluster whose Flux applies the Job (it runs there, in-cluster) */
  fluxCluster: string | undefined;
  cfg: JobsConfig;
  /** the Job's name (also its Flux Kustomization's) */
  name: string;
  planName: string;
  planLabel: string;
  /** `<num>/<steps>`, as on the Kustomizations */
  step: string;
  kubeconfigSecret: (cluster: string) => { name: string; key: string };
  /** a document of the input by kind and name (configRef) */
  lookup: (kind: string, name: string) => KubeObject | undefined;
}

const KRM_DIR = '/krm';
const KUBECONFIG_DIR = '/etc/kubeconfig';
const ANN = 'baremetal-krm.dev/';

interface ContainerParts {
  image: string;
  command?: string[];
  args?: string[];
  env: { name: string; value: string }[];
  mounts: { name: string; mountPath: string; readOnly: boolean }[];
  volumes: Data[];
  hostNetwork?: boolean;
  configMap?: Record<string, string>;
}

/** Mounts the kubeconfig Secret of `cluster` at `dir`; in-cluster (no mount) where the Job runs unless `file` is needed. */
function kubeconfigMount(p: ContainerParts, x: JobInputs, cluster: string, volume: string, dir: string, file = false): string | undefined {
  if (cluster === x.fluxCluster && !file) return undefined;
  const sec = x.kubeconfigSecret(cluster);
  p.volumes.push({ name: volume, secret: { secretName: sec.name } });
  p.mounts.push({ name: volume, mountPath: dir, readOnly: true });
  return `${dir}/${sec.key}`;
}

/** A document as YAML without the location annotations kpt and kustomize add. */
function documentText(o: KubeObject): string {
  const data = { ...o.data };
  if (isMap(data.metadata)) {
    const md = { ...data.metadata };
    if (isMap(md.annotations)) {
      const ann = Object.fromEntries(
        Object.entries(md.annotations).filter(
          ([k]) => !/^(internal\.)?config\.kubernetes\.io\/(path|index|id)$|^config\.k8s\.io\/id$|^kustomize\.config\.k8s\.io\//.test(k),
        ),
      );
      if (Object.keys(ann).length > 0) md.annotations = ann;
      else delete md.annotations;
    }
    data.metadata = md;
  }
  return yamlLib().stringify(data, EMIT_OPTIONS);
}

function indent(text: string, by: string): string {
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .map((l) => (l ? by + l : l))
    .join('\n');
}

/** The fields of a document that hold a credential (src/secrets), as `spec.envVars[1]`, each once. */
function credentialFields(doc: unknown, prefix: string): string[] {
  const out = new Set<string>();
  if (doc !== undefined) forEachCredential(doc, (_v, path) => out.add(prefix + dotted(path)));
  return [...out];
}

function genericContainer(st: Step, x: JobInputs): JobDecision {
  const d = st.executor!.data;
  const spec = isMap(d.spec) ? d.spec : {};
  const image = str(spec.image);
  if (!image) return { reason: 'the GenericContainer has no spec.image' };
  const type = str(spec.type) ?? 'krm';
  if (type !== 'krm' && type !== 'airship') return { reason: `container type "${type}" is neither krm nor airship` };
  const airship = isMap(spec.airship) ? spec.airship : {};
  if (Array.isArray(spec.mounts) && spec.mounts.length > 0) {
    const m = spec.mounts.map((v) => (isMap(v) ? `${str(v.src) ?? '?'}:${str(v.dst) ?? '?'}` : '?')).join(', ');
    return { reason: `it bind-mounts host paths (${m}), which only exist on the operator's host` };
  }
  if (airship.privileged === true) return { reason: 'it runs privileged on the operator host (spec.airship.privileged)' };
  if (st.phase?.documentEntryPoint)
    return {
      reason: `its input is the phase bundle ${st.path ?? st.phase.documentEntryPoint}, which only exists when airshipctl renders the phase`,
    };

  // the executor's config: inline `config`, or the `configRef` document when the input has it
  let config: string | undefined;
  let configDoc: { label: string; data: unknown } | undefined;
  if (typeof d.config === 'string' && d.config.trim() !== '') config = d.config;
  else if (isMap(d.configRef)) {
    const kind = str(d.configRef.kind) ?? 'ConfigMap';
    const name = str(d.configRef.name) ?? '';
    const o = x.lookup(kind, name);
    if (!o)
      return {
        reason: `its configRef ${kind}/${name} is not in the input (airshipctl renders it from the phase bundle, e.g. manifests/function/phase-helpers); add that document to run the step as a Job`,
      };
    config = documentText(o);
    configDoc = { label: `${kind}/${name} `, data: o.data };
  }
  // a Job is written into Git: a credential of the executor (envVars) or of its config would be copied there in plain text
  const held = [...credentialFields(d, ''), ...credentialFields(configDoc?.data, configDoc?.label ?? '')];
  if (held.length > 0)
    return {
      reason: `${held.join(', ')} hold(s) a credential, which a Job would copy into Git in plain text; give the container its credentials from a Secret`,
    };
  const p: ContainerParts = { image, env: [], mounts: [], volumes: [] };
  const skipped: string[] = [];
  if (Array.isArray(spec.envVars))
    for (const v of spec.envVars) {
      const s = str(v);
      if (!s) continue;
      const eq = s.indexOf('=');
      if (eq > 0) p.env.push({ name: s.slice(0, eq), value: s.slice(eq + 1) });
      else skipped.push(s);
    }
  if (spec.hostNetwork === true) p.hostNetwork = true;

  if (type === 'krm') {
    const entry = x.cfg.krmEntrypoints[image];
    if (!entry)
      return {
        reason: `a krm container reads its ResourceList on stdin, which a Job cannot give it; name the entrypoint of ${image} in spec.jobs.krmEntrypoints (the image needs /bin/sh)`,
      };
    let rl = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n';
    if (config) rl += 'functionConfig:\n' + indent(config, '  ') + '\n';
    p.configMap = { 'resource-list.yaml': rl };
    p.command = ['/bin/sh', '-c', `exec "$@" < ${KRM_DIR}/resource-list.yaml`, 'krm', ...entry];
  } else {
    if (config)
      return { reason: "an airship-type container gets its config from airshipctl's container runtime, which a Job does not reproduce" };
    const cmd = Array.isArray(airship.cmd) ? airship.cmd.map((c) => String(c)) : [];
    if (cmd.length > 0) p.command = cmd;
  }
  if (st.cluster) {
    const path = kubeconfigMount(p, x, st.cluster, 'kubeconfig', KUBECONFIG_DIR);
    if (path) p.env.push({ name: 'KUBECONFIG', value: path });
  }
  const notes: string[] = [];
  if (p.hostNetwork) notes.push('hostNetwork (the namespace must allow it)');
  if (skipped.length > 0) notes.push(`host environment not passed: ${skipped.join(', ')}`);
  return {
    job: {
      objects: buildObjects(st, x, p),
      summary: `container ${image} (${type}${p.command && type === 'airship' ? `: ${p.command.join(' ')}` : ''})${notes.length ? `; ${notes.join('; ')}` : ''}`,
    },
  };
}

function clusterctl(st: Step, x: JobInputs): JobDecision {
  const d = st.executor!.data;
  const action = str(d.action) ?? 'init';
  const image = x.cfg.clusterctlImage;
  if (!st.cluster) return { reason: 'the phase names no clusterName for clusterctl to act on' };
  if (action === 'move') {
    const from = x.bundle.clusters.get(st.cluster)?.parent;
    if (!from) return { reason: `ClusterMap gives ${st.cluster} no parent to move from` };
    if (!image)
      return { reason: 'set spec.jobs.clusterctlImage (the clusterctl release of your providers) to run clusterctl move as a Job' };
    const p: ContainerParts = { image, env: [], mounts: [], volumes: [], args: ['move'] };
    const fromPath = kubeconfigMount(p, x, from, 'kubeconfig-from', `${KUBECONFIG_DIR}-from`);
    // clusterctl needs a kubeconfig file for --to-kubeconfig, also when the target is where the Job runs
    const toPath = kubeconfigMount(p, x, st.cluster, 'kubeconfig-to', `${KUBECONFIG_DIR}-to`, true)!;
    if (fromPath) p.args!.push('--kubeconfig', fromPath);
    p.args!.push('--to-kubeconfig', toPath);
    const mo = isMap(d['move-options']) ? d['move-options'] : {};
    const ns = str(mo.namespace);
    if (ns) p.args!.push('--namespace', ns);
    return { job: { objects: buildObjects(st, x, p), summary: `${image} clusterctl ${p.args!.join(' ')}` } };
  }
  if (action !== 'init') return { reason: `clusterctl action "${action}" is not init or move` };
  const local = (Array.isArray(d.providers) ? d.providers : [])
    .filter((v) => isMap(v) && str(v.url))
    .map((v) => `${str((v as Data).name)} ${str((v as Data).url)}`);
  if (local.length > 0)
    return {
      reason: `its providers come from repositories in the phase bundle (${local.join(', ')}), which clusterctl in a Job cannot read`,
    };
  if (!image) return { reason: 'set spec.jobs.clusterctlImage (the clusterctl release of your providers) to run clusterctl init as a Job' };
  const io = isMap(d['init-options']) ? d['init-options'] : {};
  const flags: [string, string][] = [
    ['core-provider', '--core'],
    ['bootstrap-providers', '--bootstrap'],
    ['infrastructure-providers', '--infrastructure'],
    ['control-plane-providers', '--control-plane'],
  ];
  const p: ContainerParts = { image, env: [], mounts: [], volumes: [], args: ['init'] };
  for (const [k, f] of flags) {
    const v = str(io[k]);
    if (v) p.args!.push(f, v);
  }
  const path = kubeconfigMount(p, x, st.cluster, 'kubeconfig', KUBECONFIG_DIR);
  if (path) p.args!.push('--kubeconfig', path);
  return { job: { objects: buildObjects(st, x, p), summary: `${image} clusterctl ${p.args!.join(' ')}` } };
}

function buildObjects(st: Step, x: JobInputs, p: ContainerParts): Data[] {
  const labels = { [`${ANN}phase-plan`]: x.planLabel };
  const annotations = { [`${ANN}phase-plan`]: x.planName, [`${ANN}phase`]: st.phaseName, [`${ANN}step`]: x.step };
  const container: Data = { name: 'step', image: p.image };
  if (p.command) container.command = p.command;
  if (p.args) container.args = p.args;
  if (p.env.length > 0) container.env = p.env;
  const mounts = [...p.mounts];
  const volumes = [...p.volumes];
  const out: Data[] = [];
  if (p.configMap) {
    const cm = `${x.name}-krm`;
    mounts.push({ name: 'krm', mountPath: KRM_DIR, readOnly: true });
    volumes.push({ name: 'krm', configMap: { name: cm } });
    out.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: cm, namespace: x.cfg.namespace, labels, annotations },
      data: p.configMap,
    });
  }
  if (mounts.length > 0) container.volumeMounts = mounts;
  const pod: Data = { restartPolicy: 'Never' };
  if (x.cfg.serviceAccountName) pod.serviceAccountName = x.cfg.serviceAccountName;
  if (p.hostNetwork) pod.hostNetwork = true;
  pod.containers = [container];
  if (volumes.length > 0) pod.volumes = volumes;
  const job: Data = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: x.name, namespace: x.cfg.namespace, labels, annotations },
    spec: { backoffLimit: x.cfg.backoffLimit, template: { metadata: { labels }, spec: pod } },
  };
  return [job, ...out];
}

/** Whether a gate step can run as a Job, and the Job (with its ConfigMap) when it can. */
export function planJob(st: Step, x: JobInputs): JobDecision {
  switch (st.executor?.kind) {
    case 'GenericContainer':
      return genericContainer(st, x);
    case 'Clusterctl':
      return clusterctl(st, x);
    case 'BaremetalManager':
      return { reason: "BMC power and virtual-media operations need the BMC credentials and network of the operator's host" };
    case 'BootConfiguration':
      return { reason: "it starts a bootstrap container with the host's container runtime" };
    default:
      return { reason: 'no executor' };
  }
}
