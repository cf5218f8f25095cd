/**
 * Flux pieces: DNS-1123 names, the Flux release the output is for (what its kustomize-controller
 * accepts), and KubernetesApply waitOptions as Flux `wait`/`timeout`/`healthCheckExprs` (CEL).
 *
 * Versions (kustomize-controller changelog and CRD, fluxcd/kustomize-controller):
 * - `kustomize.toolkit.fluxcd.io/v1`: Flux 2.0 (kustomize-controller v1.0.0);
 * - `spec.healthCheckExprs`: Flux 2.5 (kustomize-controller v1.5.0, fluxcd/kustomize-controller#1344);
 * - `spec.dependsOn[].readyExpr` and the `AdditiveCELDependencyCheck` feature gate: Flux 2.7
 *   (kustomize-controller v1.7.0, fluxcd/kustomize-controller#1491).
 */
import { toDnsLabel } from '../../src/model/dns-name.js';
import { type Data, isMap, str } from './model.js';
import { pushAll } from '../../src/krm/index.js';

/** A Kustomization or folder name from a plan or phase name: a DNS-1123 label (`x` when nothing is left). */
export function dnsName(raw: string): string {
  return toDnsLabel(raw, { fallback: 'x' });
}

/** The Flux release assumed when `spec.flux.version` is unset (Flux 2.8.x, kustomize-controller v1.8.x). */
const DEFAULT_FLUX_VERSION = '2.8';
const ADDITIVE_CEL_GATE = 'AdditiveCELDependencyCheck';

/** What the target Flux's kustomize-controller supports. */
export interface FluxFeatures {
  version: string;
  /** `spec.healthCheckExprs` (>= 2.5) */
  healthCheckExprs: boolean;
  /** `spec.dependsOn[].readyExpr` added to the built-in readiness check (>= 2.7 with AdditiveCELDependencyCheck) */
  readyExpr: boolean;
}

/** `2.8`, `v2.4.1` -> [2, 8] / [2, 4]; undefined when not a version. */
function parseFluxVersion(v: string): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

const atLeast = (v: [number, number], major: number, minor: number) => v[0] > major || (v[0] === major && v[1] >= minor);

/** The features of a Flux release with the given feature gates; problems (as config messages) when the settings do not fit. */
export function fluxFeatures(version: string | undefined, gates: readonly string[]): { features: FluxFeatures; problems: string[] } {
  const text = version ?? DEFAULT_FLUX_VERSION;
  const v = parseFluxVersion(text) ?? parseFluxVersion(DEFAULT_FLUX_VERSION)!;
  const problems: string[] = [];
  if (!atLeast(v, 2, 0))
    problems.push(`spec.flux.version ${text}: the Kustomizations are kustomize.toolkit.fluxcd.io/v1, which needs Flux 2.0 or later`);
  const additive = gates.includes(ADDITIVE_CEL_GATE);
  if (additive && !atLeast(v, 2, 7))
    problems.push(
      `spec.flux.featureGates names ${ADDITIVE_CEL_GATE}, which Flux ${text} does not have (kustomize-controller v1.7.0, Flux 2.7)`,
    );
  return { features: { version: text, healthCheckExprs: atLeast(v, 2, 5), readyExpr: additive && atLeast(v, 2, 7) }, problems };
}

/**
 * A string as a CEL single-quoted literal: quotes, backslashes and every control character
 * escaped (a raw newline ends a CEL string literal and the expression does not parse).
 */
function celString(v: string): string {
  const body = v.replace(/[\\'\u0000-\u001f\u007f]/g, (c) => {
    if (c === '\\' || c === "'") return `\\${c}`;
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return `'${body}'`;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A value airshipctl's printed JSONPath text would show for a boolean or a number field. */
const TYPED = /^(?:true|false|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)$/;

/**
 * `expr == value` as airshipctl means it: it compares the printed JSONPath text, so `true` or
 * `3` must match a boolean or number field as well as a string one. CEL `string()` turns a
 * bool, int, uint, double or string into its text, so one form covers them all.
 */
function celEquals(expr: string, value: string): string {
  return TYPED.test(value) ? `string(${expr}) == ${celString(value)}` : `${expr} == ${celString(value)}`;
}

interface JsonPathParts {
  before: string[];
  filter?: { key: string; value: string };
  after: string[];
}

/** `{.status.conditions[?(@.type=='Available')].status}` as segments; undefined when outside our subset. */
function parseJsonPath(jp: string): JsonPathParts | undefined {
  const m = /^\{\s*(.*?)\s*\}$/.exec(jp.trim());
  let body = m ? m[1]! : jp.trim();
  if (!body.startsWith('.')) body = '.' + body;
  const parts: JsonPathParts = { before: [], after: [] };
  const re = /\.([A-Za-z_][A-Za-z0-9_]*)|\[\?\(@\.([A-Za-z_][A-Za-z0-9_]*)\s*==\s*(?:'([^']*)'|"([^"]*)")\)\]/y;
  let pos = 0;
  while (pos < body.length) {
    re.lastIndex = pos;
    const t = re.exec(body);
    if (!t) return undefined;
    pos = re.lastIndex;
    if (t[1] !== undefined) (parts.filter ? parts.after : parts.before).push(t[1]);
    else if (parts.filter)
      return undefined; // one filter only
    else parts.filter = { key: t[2]!, value: t[3] ?? t[4] ?? '' };
  }
  return parts.before.length === 0 ? undefined : parts;
}

/** CEL reserved words: never a bare identifier; selected by index and tested with `in` (`status.in` does not parse). */
const CEL_RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(' '),
);
const plainField = (seg: string) => IDENT.test(seg) && !CEL_RESERVED.has(seg);
/** `base.seg`, or `base['seg']` for a reserved word. */
const select = (base: string, seg: string) => (plainField(seg) ? `${base}.${seg}` : `${base}[${celString(seg)}]`);
/** `has(base.seg)`, or `'seg' in base` (map key test) for a reserved word. */
const present = (base: string, seg: string) => (plainField(seg) ? `has(${base}.${seg})` : `${celString(seg)} in ${base}`);

/** The field path below a CEL variable: its presence guards, outermost first, and the access expression. */
function fieldPath(root: string, path: string[]): { guards: string[]; expr: string } {
  const guards: string[] = [];
  let expr = root;
  for (const seg of path) {
    guards.push(present(expr, seg));
    expr = select(expr, seg);
  }
  return { guards, expr };
}

/**
 * A KubernetesApply wait condition as a CEL expression over the object (Flux evaluates
 * `healthCheckExprs` with the object's top-level fields as variables). Undefined when the
 * JSONPath is outside the supported subset (dotted fields and one `[?(@.k=='v')]` filter).
 */
export function conditionToCel(jsonPath: string, value: string | undefined): string | undefined {
  const p = parseJsonPath(jsonPath);
  // the root is a CEL variable (a top-level field of the object): a reserved word cannot name it
  if (!p || !plainField(p.before[0]!)) return undefined;
  const [root, ...rest] = p.before as [string, ...string[]];
  // a whole top-level field (`{.status}`) compared with a value: airshipctl prints the object, never a match
  if (!p.filter && rest.length === 0) return undefined;
  const { guards, expr } = fieldPath(root, rest);
  if (!p.filter) return value === undefined ? guards.join(' && ') : [...guards, celEquals(expr, value)].join(' && ');
  const inner: string[] = [`${select('e', p.filter.key)} == ${celString(p.filter.value)}`];
  if (p.after.length > 0) {
    const after = fieldPath('e', p.after);
    pushAll(inner, after.guards);
    if (value !== undefined) inner.push(celEquals(after.expr, value));
  } else if (value !== undefined) return undefined;
  return [...guards, `${expr}.exists(e, ${inner.join(' && ')})`].join(' && ');
}

/** The top-level field a supported wait condition reads (`status` for `{.status.x}`). */
function conditionRoot(jsonPath: string): string | undefined {
  return parseJsonPath(jsonPath)?.before[0];
}

/**
 * Top-level fields every object has or whose absence only means "not ready yet": `status` is
 * written by the object's controller. Any other top-level field (`spec`, `data`) that an object
 * lacks cannot be guarded: CEL's `has()` needs a field selection, so a missing top-level variable
 * fails the expression and Flux waits to the timeout.
 */
const ALWAYS_THERE = new Set(['apiVersion', 'kind', 'metadata', 'status']);

export interface WaitPlan {
  wait: boolean;
  timeout?: string;
  healthCheckExprs: { apiVersion: string; kind: string; current: string }[];
  /** human-readable waits for the report */
  summary: string[];
  /** conditions that could not be expressed: [index, jsonPath] */
  unsupported: [number, string][];
  /** conditions left out because the Flux release has no healthCheckExprs: [index, jsonPath] */
  needsNewerFlux: [number, string][];
  /** conditions over a top-level field an object may lack: [index, jsonPath, field] */
  mayBeAbsent: [number, string, string][];
}

/** KubernetesApply `config.waitOptions` as Flux wait/timeout/healthCheckExprs for the given Flux. */
export function waitPlan(executorData: Data, flux: FluxFeatures): WaitPlan {
  const cfg = isMap(executorData.config) ? executorData.config : {};
  const wo = isMap(cfg.waitOptions) ? cfg.waitOptions : {};
  const timeout = typeof wo.timeout === 'number' ? wo.timeout : undefined;
  // airshipctl waits only for a timeout > 0: unset is 0, and 0 disables waiting
  const out: WaitPlan = {
    wait: timeout !== undefined && timeout > 0,
    healthCheckExprs: [],
    summary: [],
    unsupported: [],
    needsNewerFlux: [],
    mayBeAbsent: [],
  };
  if (!out.wait) {
    out.summary.push(timeout === undefined ? 'no wait (waitOptions.timeout unset)' : `no wait (waitOptions.timeout ${timeout})`);
    return out;
  }
  out.timeout = `${timeout}s`;
  out.summary.push(`ready within ${out.timeout}`);
  // Flux keys health checks by group and kind (two entries for one GroupKind are an error)
  const byGroupKind = new Map<string, { apiVersion: string; kind: string; exprs: string[] }>();
  const conds = Array.isArray(wo.conditions) ? wo.conditions : [];
  conds.forEach((c, i) => {
    if (!isMap(c)) return;
    const apiVersion = str(c.apiVersion);
    const kind = str(c.kind);
    const jp = str(c.jsonPath);
    const value = c.value === undefined || c.value === null ? undefined : String(c.value);
    const cel = apiVersion && kind && jp ? conditionToCel(jp, value) : undefined;
    if (!cel || !apiVersion || !kind || !jp) {
      out.unsupported.push([i, jp ?? '(no jsonPath)']);
      return;
    }
    if (!flux.healthCheckExprs) {
      out.needsNewerFlux.push([i, jp]);
      return;
    }
    const root = conditionRoot(jp)!;
    if (!ALWAYS_THERE.has(root)) out.mayBeAbsent.push([i, jp, root]);
    const key = `${apiVersion.includes('/') ? apiVersion.split('/')[0] : ''}|${kind}`;
    let e = byGroupKind.get(key);
    if (!e) byGroupKind.set(key, (e = { apiVersion, kind, exprs: [] }));
    e.exprs.push(cel);
    out.summary.push(`${kind} ${jp}${value !== undefined ? ` = ${value}` : ' set'}`);
  });
  if (out.needsNewerFlux.length > 0) out.summary.push(`every object ready (kstatus): Flux ${flux.version} has no healthCheckExprs`);
  for (const e of byGroupKind.values()) {
    const current = e.exprs.length === 1 ? e.exprs[0]! : e.exprs.map((x) => `(${x})`).join(' && ');
    out.healthCheckExprs.push({ apiVersion: e.apiVersion, kind: e.kind, current });
  }
  return out;
}

export function pruneOf(executorData: Data): boolean {
  const cfg = isMap(executorData.config) ? executorData.config : {};
  const po = isMap(cfg.pruneOptions) ? cfg.pruneOptions : {};
  return po.prune === true;
}

/** The annotation an operator sets on a Kustomization once the gates before it have run. */
export const GATES_DONE_ANNOTATION = 'baremetal-krm.dev/gates-done';

/**
 * `dependsOn[].readyExpr` (with AdditiveCELDependencyCheck: on top of the dependency's Ready):
 * the Kustomization waits until it carries `baremetal-krm.dev/gates-done: <gate ids>`, which the
 * operator sets after running the gates between it and its dependencies.
 */
export function gatesDoneExpr(gateIds: string[]): string {
  const key = celString(GATES_DONE_ANNOTATION);
  return `has(self.metadata.annotations) && ${key} in self.metadata.annotations && self.metadata.annotations[${key}] == ${celString(gateIds.join(','))}`;
}
