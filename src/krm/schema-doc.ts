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

export function schemaReference(schema: JsonSchema, indent = ''): string {
  return rows(schema, '', [])
    .map((r) => `${indent}${r.path} (${r.type})${r.description ? ': ' + r.description : ''}`)
    .join('\n');
}

export function schemaMarkdown(schema: JsonSchema): string {
  const esc = (t: string): string => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    '| field | type | description |',
    '| --- | --- | --- |',
    ...rows(schema, '', []).map((r) => `| \`spec.${r.path}\` | ${esc(r.type)} | ${esc(r.description)} |`),
  ].join('\n');
}
