/**
 * What changed between two versions of an object: the paths (segments) whose values differ.
 * Maps are walked key by key; a list that differs in any way is one changed path (its order
 * and items matter as a whole: dependsOn, containers). Fields that never reach the cluster
 * (status, server-set metadata, tool annotations, this tool's own allow annotation) are left out.
 */
import { isRecord, sameData } from '../krm/index.js';
import { ALLOW_ANNOTATION } from './model.js';

/** metadata the API server sets or tools add: changing them in Git changes nothing */
const SERVER_METADATA = new Set(['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'selfLink']);
const TOOL_ANNOTATION =
  /^(config\.kubernetes\.io\/|internal\.config\.kubernetes\.io\/|config\.k8s\.io\/|kustomize\.config\.k8s\.io\/|kubectl\.kubernetes\.io\/last-applied-configuration$)/;

function inert(path: readonly string[]): boolean {
  if (path[0] === 'status') return true;
  if (path[0] !== 'metadata') return false;
  if (path.length >= 2 && SERVER_METADATA.has(path[1]!)) return true;
  if (path[1] === 'annotations' && path.length >= 3) return path[2] === ALLOW_ANNOTATION || TOOL_ANNOTATION.test(path[2]!);
  return false;
}

/** Changed paths between two values (objects' data); `inert` ones (status, tool metadata) are not listed. */
export function changedPaths(a: unknown, b: unknown): string[][] {
  const out: string[][] = [];
  const walk = (x: unknown, y: unknown, path: string[]): void => {
    if (inert(path)) return;
    if (isRecord(x) && isRecord(y)) {
      for (const k of Object.keys(x)) walk(x[k], Object.hasOwn(y, k) ? y[k] : undefined, [...path, k]);
      for (const k of Object.keys(y)) if (!Object.hasOwn(x, k)) walk(undefined, y[k], [...path, k]);
      return;
    }
    if (isRecord(x) && y === undefined) {
      for (const k of Object.keys(x)) walk(x[k], undefined, [...path, k]);
      if (Object.keys(x).length === 0) out.push(path);
      return;
    }
    if (x === undefined && isRecord(y)) {
      for (const k of Object.keys(y)) walk(undefined, y[k], [...path, k]);
      if (Object.keys(y).length === 0) out.push(path);
      return;
    }
    if (!sameData(x, y)) out.push(path);
  };
  walk(a, b, []);
  return out;
}

/** `spec.bmc.address`: a path as dotted text (keys with dots quoted in brackets). */
export function pathText(path: readonly string[]): string {
  return path.map((p, i) => (p.includes('.') ? `["${p}"]` : i === 0 ? p : `.${p}`)).join('');
}

/** True when a path starts with the given segments. */
export function under(path: readonly string[], ...prefix: string[]): boolean {
  return prefix.every((p, i) => path[i] === p);
}
