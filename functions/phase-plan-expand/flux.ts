/**
 * Flux pieces: DNS-1123 names, KubernetesApply waitOptions conditions as Flux
 * `healthCheckExprs` (CEL), and the Kustomization object itself.
 */
import { toDnsLabel } from '../../src/model/dns-name.js';
import { isMap, str, type Data } from './model.js';

/** A Kustomization or folder name from a plan or phase name: a DNS-1123 label (`x` when nothing is left). */
export function dnsName(raw: string): string {
  return toDnsLabel(raw, { fallback: 'x' });
}

function celString(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
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

/** `{.status.conditions[?(@.type=='Available')].status}` as segments; undefined when outside our subset. */
function parseJsonPath(jp: string): { before: string[]; filter?: { key: string; value: string }; after: string[] } | undefined {
  const m = /^\{\s*(.*?)\s*\}$/.exec(jp.trim());
  let body = m ? m[1]! : jp.trim();
  if (!body.startsWith('.')) body = '.' + body;
  const before: string[] = [];
  const after: string[] = [];
  let filter: { key: string; value: string } | undefined;
  const re = /\.([A-Za-z_][A-Za-z0-9_]*)|\[\?\(@\.([A-Za-z_][A-Za-z0-9_]*)\s*==\s*(?:'([^']*)'|"([^"]*)")\)\]/y;
  let pos = 0;
  while (pos < body.length) {
    re.lastIndex = pos;
    const t = re.exec(body);
    if (!t) return undefined;
    pos = re.lastIndex;
    if (t[1] !== undefined) (filter ? after : before).push(t[1]);
    else {
      if (filter) return undefined; // one filter only
      filter = { key: t[2]!, value: t[3] ?? t[4] ?? '' };
    }
  }
  if (before.length === 0) return undefined;
  return filter ? { before, filter, after } : { before, after };
}

/** CEL reserved words: never a bare identifier or field selection (`status.in` does not parse). */
const CEL_RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
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
    inner.push(...after.guards);
    if (value !== undefined) inner.push(celEquals(after.expr, value));
  } else if (value !== undefined) return undefined;
  return [...guards, `${expr}.exists(e, ${inner.join(' && ')})`].join(' && ');
}

export interface WaitPlan {
  wait: boolean;
  timeout?: string;
  healthCheckExprs: { apiVersion: string; kind: string; current: string }[];
  /** human-readable waits for the report */
  summary: string[];
  /** conditions that could not be expressed: [index, jsonPath] */
  unsupported: [number, string][];
}

/** KubernetesApply `config.waitOptions` as Flux wait/timeout/healthCheckExprs. */
export function waitPlan(executorData: Data): WaitPlan {
  const cfg = isMap(executorData.config) ? executorData.config : {};
  const wo = isMap(cfg.waitOptions) ? cfg.waitOptions : {};
  const timeout = typeof wo.timeout === 'number' ? wo.timeout : undefined;
  // airshipctl waits only for a timeout > 0: unset is 0, and 0 disables waiting
  const out: WaitPlan = { wait: timeout !== undefined && timeout > 0, healthCheckExprs: [], summary: [], unsupported: [] };
  if (!out.wait) {
    out.summary.push(timeout === undefined ? 'no wait (waitOptions.timeout unset)' : `no wait (waitOptions.timeout ${timeout})`);
    return out;
  }
  out.timeout = `${timeout}s`;
  out.summary.push(`ready within ${out.timeout}`);
  const byKind = new Map<string, { apiVersion: string; kind: string; exprs: string[] }>();
  const conds = Array.isArray(wo.conditions) ? wo.conditions : [];
  conds.forEach((c, i) => {
    if (!isMap(c)) return;
    const apiVersion = str(c.apiVersion);
    const kind = str(c.kind);
    const jp = str(c.jsonPath);
    const value = c.value === undefined || c.value === null ? undefined : String(c.value);
    const cel = apiVersion && kind && jp ? conditionToCel(jp, value) : undefined;
    if (!cel || !apiVersion || !kind) {
      out.unsupported.push([i, jp ?? '(no jsonPath)']);
      return;
    }
    const key = `${apiVersion}|${kind}`;
    let e = byKind.get(key);
    if (!e) byKind.set(key, (e = { apiVersion, kind, exprs: [] }));
    e.exprs.push(cel);
    out.summary.push(`${kind} ${jp}${value !== undefined ? ` = ${value}` : ' set'}`);
  });
  for (const e of byKind.values()) {
    out.healthCheckExprs.push({
      apiVersion: e.apiVersion,
      kind: e.kind,
      current: e.exprs.length === 1 ? e.exprs[0]! : e.exprs.map((x) => `(${x})`).join(' && '),
    });
  }
  return out;
}

export function pruneOf(executorData: Data): boolean {
  const cfg = isMap(executorData.config) ? executorData.config : {};
  const po = isMap(cfg.pruneOptions) ? cfg.pruneOptions : {};
  return po.prune === true;
}
