/**
 * Sprig's `toYaml` (Go yaml.v2 via sigs.k8s.io/yaml) for plain data, as the airshipctl host
 * generator template uses it: keys sorted, block sequences not indented inside mappings,
 * strings quoted only when they would read back as another type. No trailing newline, like
 * sprig (which trims it).
 */
import { yamlLib } from '../../src/krm/lazy.js';

const parse = (src: string, options?: import('yaml').ParseOptions & import('yaml').DocumentOptions & import('yaml').SchemaOptions): unknown =>
  yamlLib().parse(src, options);

const PLAIN_UNSAFE_START = /^[-?:,[\]{}#&*!|>'"%@`]/;

function resolvesToString(s: string): boolean {
  try {
    return typeof parse(s, { version: '1.1' }) === 'string';
  } catch {
    return false;
  }
}

export function goScalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  const s = String(v);
  if (s === '' || !resolvesToString(s)) return JSON.stringify(s);
  const plainOk =
    !/[\n\r\t\x00-\x1f]/.test(s) &&
    s.trim() === s &&
    !(PLAIN_UNSAFE_START.test(s) && !/^[-?:][^\s]/.test(s)) &&
    !s.includes(': ') &&
    !s.includes(' #') &&
    !s.endsWith(':');
  if (plainOk) return s;
  if (!/[\n\r\x00-\x1f]/.test(s)) return `'${s.replace(/'/g, "''")}'`;
  return JSON.stringify(s);
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function lines(v: unknown): string[] {
  if (Array.isArray(v)) {
    if (v.length === 0) return ['[]'];
    const out: string[] = [];
    for (const item of v) {
      if ((isMap(item) && Object.keys(item).length) || (Array.isArray(item) && item.length)) {
        const inner = lines(item);
        out.push('- ' + inner[0], ...inner.slice(1).map((l) => '  ' + l));
      } else out.push('- ' + lines(item)[0]);
    }
    return out;
  }
  if (isMap(v)) {
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return ['{}'];
    const out: string[] = [];
    for (const k of keys) {
      const val = v[k];
      const key = goScalar(k);
      if (isMap(val) && Object.keys(val).length) out.push(key + ':', ...lines(val).map((l) => '  ' + l));
      else if (Array.isArray(val) && val.length) out.push(key + ':', ...lines(val));
      else out.push(`${key}: ${lines(val)[0]}`);
    }
    return out;
  }
  return [goScalar(v)];
}

/** `toYaml v` */
export function toYaml(v: unknown): string {
  return lines(v).join('\n');
}

/** `toYaml v | indent n` */
export function indent(text: string, n: number): string {
  const pad = ' '.repeat(n);
  return text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
}

/** Keys sorted recursively, as toYaml writes maps (for BareMetalHost fields from profiles). */
export function sortedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(sortedKeys) as T;
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortedKeys(v[k]);
    return out as T;
  }
  return v;
}
