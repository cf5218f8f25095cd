/**
 * Renders a JSON schema as a field reference: plain text for `--help`, Markdown for READMEs
 * (scripts/docs.mjs writes it between markers, so the docs cannot drift from the schema).
 */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  [k: string]: unknown;
}

interface Row {
  path: string;
  type: string;
  description: string;
}

function typeOf(s: JsonSchema): string {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) return [...new Set(union.map(typeOf))].join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  const t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any');
  if (t === 'array' && s.items) return `${typeOf(s.items)}[]`;
  if (t === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object')
    return `map of ${typeOf(s.additionalProperties)}`;
  return t;
}

function rows(s: JsonSchema, prefix: string, out: Row[]): Row[] {
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const path = prefix ? `${prefix}.${k}` : k;
    let d = p.description ?? '';
    if (p.default !== undefined) d += `${d ? ' ' : ''}Default: ${JSON.stringify(p.default)}.`;
    if (s.required?.includes(k)) d = `Required. ${d}`;
    out.push({ path, type: typeOf(p), description: d });
    if (p.properties) rows(p, path, out);
    if (p.items?.properties) rows(p.items, `${path}[]`, out);
    if (p.additionalProperties && typeof p.additionalProperties === 'object' && p.additionalProperties.properties)
      rows(p.additionalProperties, `${path}.<name>`, out);
  }
  return out;
}

/**
 * The schema with local `$ref`s (`#/definitions/x`, `#/$defs/x`) replaced by what they point at
 * (siblings of the `$ref`, such as its own description, win); at a cycle's second visit only the type.
 */
export function inlineRefs(root: JsonSchema): JsonSchema {
  const lookup = (ref: string): JsonSchema | undefined => {
    if (!ref.startsWith('#/')) return undefined;
    let v: unknown = root;
    for (const seg of ref.slice(2).split('/'))
      v = v && typeof v === 'object' ? (v as Record<string, unknown>)[seg.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    return v && typeof v === 'object' ? (v as JsonSchema) : undefined;
  };
  const walk = (v: unknown, seen: ReadonlySet<string>): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, seen));
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    const target = typeof o.$ref === 'string' ? lookup(o.$ref) : undefined;
    if (target) {
      const { $ref, ...siblings } = o;
      // a cycle: the type, not its fields again
      if (seen.has($ref as string)) return { type: target.type, ...siblings };
      return walk({ ...target, ...siblings }, new Set([...seen, $ref as string]));
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, k === 'definitions' || k === '$defs' ? x : walk(x, seen)]));
  };
  return walk(root, new Set()) as JsonSchema;
}

export function schemaReference(schema: JsonSchema, indent = ''): string {
  return rows(inlineRefs(schema), '', [])
    .map((r) => `${indent}${r.path} (${r.type})${r.description ? ': ' + r.description : ''}`)
    .join('\n');
}

export function schemaMarkdown(schema: JsonSchema): string {
  const esc = (t: string): string => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    '| field | type | description |',
    '| --- | --- | --- |',
    ...rows(inlineRefs(schema), '', []).map((r) => `| \`spec.${r.path}\` | ${esc(r.type)} | ${esc(r.description)} |`),
  ].join('\n');
}
