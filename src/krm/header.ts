/**
 * What a KRM resource's header must hold, as the API server decodes it: `apiVersion` and
 * `kind` non-empty strings; `metadata` a mapping whose `name`, `namespace` and `generateName`
 * are strings and whose `labels` and `annotations` map keys to strings (a number or a boolean
 * where a string belongs is refused there: "cannot unmarshal number into Go struct field
 * ObjectMeta.metadata.name of type string"). The one place that decides: the runtime checks
 * every function's items with it, the CLI every file's, the analysis skips what it names.
 *
 * Deliberately not problems:
 * - no apiVersion and no kind at all: not a KRM resource (a kustomization.yaml, a values file);
 *   callers name it and pass it through or skip it;
 * - no metadata, or metadata without a name: component configuration files
 *   (KubeletConfiguration, kubeadm's ClusterConfiguration) have none, and kpt adds
 *   `metadata.annotations` to every file it passes to a function;
 * - a null or empty namespace, generateName, labels or annotations, or a null label value:
 *   Kubernetes reads them as unset.
 * What is a problem although Kubernetes would read it as unset: `metadata:` or `name:` written
 * with nothing after them, almost always a slip of indentation (`name:` at the top level).
 */
import { isRecord } from './data.js';
import { isSensitiveKey } from '../secrets/keys.js';

export interface HeaderProblem {
  /** the field, dotted: `kind`, `metadata.labels.app` */
  field: string;
  /** the field's path, for finding its line (label keys may hold dots) */
  path: readonly string[];
  /** what is wrong and the fix, naming the field: `kind is a list, not a string: ...` */
  message: string;
  /**
   * The item's identity (apiVersion, kind, namespace, name) cannot be told: rules that key
   * objects by it must skip the item. Label and annotation problems leave it known.
   */
  identity: boolean;
}

/** No problem (almost every item): one frozen list shared by all. */
const NONE: readonly HeaderProblem[] = Object.freeze([]);

/**
 * A value's type as messages say it; numbers and booleans with their value when `shown` (never
 * a string's, nor an annotation's: annotations may hold credentials).
 */
export function typeOf(v: unknown, shown = true): string {
  if (v === null) return 'empty (null)';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (shown && (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')) return `a ${typeof v} (${String(v)})`;
  return `a ${typeof v}`;
}

/** A scalar that YAML read as something else than the string it was likely meant to be. */
function quotable(v: unknown): boolean {
  return typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint';
}

/** The fix for a number or boolean where a string belongs: what YAML (1.1, as kubectl reads it) did to it. */
function quoteFix(v: unknown): string {
  return typeof v === 'boolean'
    ? 'quote the value as written (YAML 1.1, as kubectl reads it, takes y, n, yes, no, on, off, true and false unquoted as booleans)'
    : 'quote the value as written (YAML reads it unquoted as a number)';
}

const FIX = {
  apiVersion: 'write group/version as a string, e.g. apiVersion: metal3.io/v1alpha1 (v1 for core kinds)',
  kind: 'write the kind as a string, e.g. kind: BareMetalHost',
  metadata: 'write name: (and namespace:, labels:, annotations:) indented under metadata:',
};

/** apiVersion or kind: a non-empty string. */
function typeField(out: HeaderProblem[], head: Record<string, unknown>, field: 'apiVersion' | 'kind'): void {
  const v = head[field];
  const other = field === 'kind' ? 'apiVersion' : 'kind';
  let what: string | undefined;
  if (v === undefined || v === null) what = `${field} is missing (the item has ${other}: every KRM resource needs both)`;
  else if (v === '') what = `${field} is empty`;
  else if (typeof v !== 'string') what = `${field} is ${typeOf(v)}, not a string`;
  if (what) out.push({ field, path: [field], message: `${what}: ${FIX[field]}`, identity: true });
}

/** name, namespace, generateName: a string when set (name: non-empty when written). */
function textField(out: HeaderProblem[], md: Record<string, unknown>, key: 'name' | 'namespace' | 'generateName'): void {
  if (!Object.hasOwn(md, key)) return;
  const v = md[key];
  const field = `metadata.${key}`;
  const path = ['metadata', key];
  const identity = key !== 'generateName';
  let message: string;
  if (key === 'name' && (v === null || v === ''))
    message = `${field} is empty: name the resource (a DNS-1123 name such as node-1), or leave out name: to use generateName`;
  else if (v === null || typeof v === 'string') return;
  else if (quotable(v)) message = `${field} is ${typeOf(v)}, not a string: ${quoteFix(v)}`;
  else message = `${field} is ${typeOf(v)}, not a string: write one ${key === 'generateName' ? 'prefix' : key} as a string`;
  out.push({ field, path, message, identity });
}

/** labels, annotations: a mapping of strings when set. */
function stringMapField(out: HeaderProblem[], md: Record<string, unknown>, key: 'labels' | 'annotations'): void {
  const v = md[key];
  if (v === undefined || v === null) return;
  const field = `metadata.${key}`;
  if (!isRecord(v)) {
    const message = `${field} is ${typeOf(v)}, not a mapping: write key: value pairs indented under it, or leave it out`;
    out.push({ field, path: ['metadata', key], message, identity: false });
    return;
  }
  for (const k in v) {
    const value = v[k];
    if (value === null || typeof value === 'string') continue;
    const fix = quotable(value) ? quoteFix(value) : 'write one string value';
    out.push({
      field: `${field}.${k}`,
      path: ['metadata', key, k],
      // a label's value is shown (`a number (3)`), never one under a credential's name
      message: `${field}.${k} is ${typeOf(value, key === 'labels' && !isSensitiveKey(k))}, not a string: ${fix}; Kubernetes reads ${key === 'labels' ? 'label' : 'annotation'} values as strings only`,
      identity: false,
    });
  }
}

/**
 * What is wrong with an item's header (`head`: the item's top-level mapping, or its header
 * part), each naming its field and the fix; empty (a shared list) when nothing is, and when the
 * item has neither apiVersion nor kind (not a KRM resource: callers say so).
 */
export function headerProblems(head: Record<string, unknown>): readonly HeaderProblem[] {
  const av = head.apiVersion;
  const kind = head.kind;
  const md = head.metadata;
  // the usual case, checked without allocating
  if (typeof av === 'string' && av !== '' && typeof kind === 'string' && kind !== '' && isRecord(md) && plainMetadata(md)) return NONE;
  if ((av === undefined || av === null) && (kind === undefined || kind === null)) return NONE;
  const out: HeaderProblem[] = [];
  typeField(out, head, 'apiVersion');
  typeField(out, head, 'kind');
  if (md === undefined) return out.length ? out : NONE;
  if (!isRecord(md)) {
    const what = md === null ? 'metadata is empty' : `metadata is ${typeOf(md)}, not a mapping`;
    out.push({ field: 'metadata', path: ['metadata'], message: `${what}: ${FIX.metadata}`, identity: true });
    return out;
  }
  textField(out, md, 'name');
  textField(out, md, 'namespace');
  textField(out, md, 'generateName');
  stringMapField(out, md, 'labels');
  stringMapField(out, md, 'annotations');
  return out.length ? out : NONE;
}

/** Whether metadata holds nothing headerProblems would name (the usual case: strings and string maps). */
function plainMetadata(md: Record<string, unknown>): boolean {
  const name = md.name;
  if (name !== undefined && (typeof name !== 'string' || name === '')) return false;
  for (const key of ['namespace', 'generateName'] as const) {
    const v = md[key];
    if (v !== undefined && v !== null && typeof v !== 'string') return false;
  }
  for (const key of ['labels', 'annotations'] as const) {
    const m = md[key];
    if (m === undefined || m === null) continue;
    if (!isRecord(m)) return false;
    for (const k in m) {
      const v = m[k];
      if (v !== null && typeof v !== 'string') return false;
    }
  }
  return true;
}
