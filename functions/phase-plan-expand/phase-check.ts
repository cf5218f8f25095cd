/**
 * A Phase on its own, as airshipctl resolves it when the phase runs: its executor document
 * (selected by group, version, kind, name and, when the ref has one, namespace), its entry
 * point (inside the repository, present in the package, buildable by Flux) and its cluster.
 */
import { type Bundle, type Executor, execKey, type Settings } from './bundle.js';
import { checkEntryPoint, type EntryIssue, entryPath, joinEntry } from './entry-points.js';
import { AIRSHIP_GROUP, EXECUTOR_KINDS, type PhaseDoc } from './model.js';
import { pushAll } from '../../src/krm/index.js';

interface PhaseCheck {
  executor?: Executor;
  issues: EntryIssue[];
  /** Flux path (`./...`) of the entry point */
  path?: string;
}

export type PhaseCache = Map<PhaseDoc, PhaseCheck>;

const noApiVersion = (v: string | undefined) => v ?? '(no apiVersion)';

/** Checks a Phase on its own (memoized per phase). */
export function checkPhase(b: Bundle, s: Settings, p: PhaseDoc, cache: PhaseCache): PhaseCheck {
  const hit = cache.get(p);
  if (hit) return hit;
  const r: PhaseCheck = { issues: [] };
  cache.set(p, r);
  const needsBundle = resolveExecutor(b, p, r);
  checkEntry(b, s, p, r, needsBundle);
  if (p.clusterName && !b.clusters.has(p.clusterName)) {
    r.issues.push({
      severity: 'error',
      rule: 'phase/unknown-cluster',
      field: 'metadata.clusterName',
      message: b.clusterMap
        ? `Phase ${p.name}: clusterName "${p.clusterName}" is not in ClusterMap ${b.clusterMap.name} (clusters: ${[...b.clusters.keys()].sort().join(', ')}); add map.${p.clusterName} or fix metadata.clusterName`
        : `Phase ${p.name}: clusterName "${p.clusterName}" but the input has no ClusterMap; add the ClusterMap document`,
    });
  }
  return r;
}

/** Finds the executor document; returns whether the executor needs a bundle (an entry point). */
function resolveExecutor(b: Bundle, p: PhaseDoc, r: PhaseCheck): boolean {
  const ref = p.executorRef;
  if (!ref?.name || !ref.kind) {
    r.issues.push({
      severity: 'error',
      rule: 'phase/no-executor',
      field: 'config.executorRef',
      message: `Phase ${p.name} has no config.executorRef (apiVersion, kind, name); name the executor document that runs it`,
    });
    return true;
  }
  let needsBundle = true;
  const known = EXECUTOR_KINDS[ref.kind];
  if ((ref.apiVersion ?? '').split('/')[0] !== AIRSHIP_GROUP || !known) {
    r.issues.push({
      severity: 'error',
      rule: 'phase/unknown-executor-kind',
      field: 'config.executorRef.kind',
      message: `Phase ${p.name}: executor kind ${noApiVersion(ref.apiVersion)}/${ref.kind} is not one airshipctl runs (${AIRSHIP_GROUP}: ${Object.keys(EXECUTOR_KINDS).join(', ')}); fix config.executorRef`,
    });
  } else needsBundle = known.needsBundle;
  // airshipctl's selector: group, version, kind, name, and the namespace when the ref has one
  const named = b.executors.get(execKey(ref.kind, ref.name)) ?? [];
  const ex = named.find((e) => e.obj.apiVersion === ref.apiVersion && (ref.namespace === undefined || e.obj.namespace === ref.namespace));
  if (ex) r.executor = ex;
  else
    r.issues.push({ severity: 'error', rule: 'phase/executor-not-found', field: 'config.executorRef.name', message: notFound(p, named) });
  return needsBundle;
}

function notFound(p: PhaseDoc, named: Executor[]): string {
  const ref = p.executorRef!;
  if (named.length === 0)
    return `Phase ${p.name}: executor ${ref.kind}/${ref.name} found no document in the input; add it or fix config.executorRef`;
  const inNs = ref.namespace !== undefined ? ` in namespace ${ref.namespace}` : '';
  const by = `group, version, kind, name${ref.namespace !== undefined ? ' and namespace' : ''}`;
  const has = named.map((e) => `${e.obj.apiVersion} ${e.obj.id}`).join(', ');
  return `Phase ${p.name}: executor ${noApiVersion(ref.apiVersion)} ${ref.kind}/${ref.name}${inNs} found no document: airshipctl selects by ${by}, and the input has ${has}; fix config.executorRef`;
}

function checkEntry(b: Bundle, s: Settings, p: PhaseDoc, r: PhaseCheck, needsBundle: boolean): void {
  if (!p.documentEntryPoint) {
    // without an executor document there is nothing to say about its bundle
    if (needsBundle && r.executor)
      r.issues.push({
        severity: 'error',
        rule: 'phase/no-entrypoint',
        field: 'config.documentEntryPoint',
        message: `documentEntryPoint is not defined for the phase '${p.name}' in namespace '${p.namespace ?? ''}'; its executor (${p.executorRef?.kind ?? 'unknown'}) needs a bundle: set config.documentEntryPoint to a directory under the docEntryPointPrefix`,
      });
    return;
  }
  const path = entryPath(b, s, p.documentEntryPoint);
  if (path === undefined) {
    r.issues.push({
      severity: 'error',
      rule: 'phase/entrypoint-outside',
      field: 'config.documentEntryPoint',
      message: `Phase ${p.name}: documentEntryPoint "${p.documentEntryPoint}" leaves the repository (resolves to "${joinEntry(b, s, p.documentEntryPoint)}"); make it relative to the docEntryPointPrefix`,
    });
    return;
  }
  r.path = path === '' ? './' : `./${path}`;
  // only the bundles Flux builds: the other executors read theirs through airshipctl
  if (r.executor && EXECUTOR_KINDS[r.executor.kind]?.flux) pushAll(r.issues, checkEntryPoint(b, b.pkgRoot, path));
}
