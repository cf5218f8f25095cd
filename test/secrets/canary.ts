/**
 * Canaries and the scanner of the secrets harness. A canary is a unique value planted in one
 * input channel; the scanner looks for it in every byte of an output, in every form a value
 * takes on the way out: as is, base64 (standard and URL-safe, at any byte offset inside a
 * longer base64 text), URL-encoded and hex.
 *
 * Deliberately independent of src/secrets (the module under test): with the redaction removed
 * the scanner must still see every leak.
 */
import { createHash } from 'node:crypto';
import { parseAllDocuments } from 'yaml';

/**
 * `text` (letters and digits), `special` (characters that URL-encoding and base64 change),
 * `number`, `octal` (what YAML 1.1 reads as octal), `aws-key-id` (an AWS access key id's shape:
 * `AKIA` and 16 capitals or digits, known by its shape alone).
 */
export type CanaryKind = 'text' | 'special' | 'number' | 'octal' | 'aws-key-id';

/** The canary of a channel: derived from its id, so a failure is reproducible. */
export function canaryValue(id: string, kind: CanaryKind = 'text'): string {
  const h = createHash('sha256').update(`baremetal-krm canary ${id}`).digest('hex');
  const digits = h.replace(/[a-f]/g, (c) => String(c.charCodeAt(0) % 10));
  switch (kind) {
    case 'number':
      return `9${digits.slice(0, 10)}`;
    case 'octal':
      return `0${digits.replace(/[089]/g, '7').slice(0, 9)}`;
    case 'aws-key-id':
      return `AKIA${h.slice(0, 16).toUpperCase()}`;
    case 'special':
      return `Cnry/${h.slice(0, 8)}+p@ss=${h.slice(8, 12)}!`;
    default:
      return `Cnry${h.slice(0, 6)}X${h.slice(6, 14)}q`;
  }
}

export interface Form {
  form: string;
  text: string;
}

/** The part of base64(pad + value) that only value's bits decide: what a longer base64 text holds when value starts at that offset. */
function base64Middle(value: Buffer, pad: number): string {
  const enc = Buffer.concat([Buffer.alloc(pad), value]).toString('base64');
  return enc.slice(Math.ceil((8 * pad) / 6), Math.floor((8 * (pad + value.length)) / 6));
}

/** Every form a value takes in output (at least 8 characters each, so that no form matches by chance). */
export function forms(value: string): Form[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: Form[] = [{ form: 'plain', text: value }];
  const url = encodeURIComponent(value);
  if (url !== value) out.push({ form: 'url-encoded', text: url });
  out.push({ form: 'hex', text: bytes.toString('hex') }, { form: 'HEX', text: bytes.toString('hex').toUpperCase() });
  for (const pad of [0, 1, 2]) {
    const b64 = base64Middle(bytes, pad);
    out.push({ form: `base64@${pad}`, text: b64 });
    const b64url = b64.replace(/\+/g, '-').replace(/\//g, '_');
    if (b64url !== b64) out.push({ form: `base64url@${pad}`, text: b64url });
  }
  return out.filter((f) => f.text.length >= 8);
}

/** The forms of `value` found in `text`. */
export function findForms(text: string, value: string): string[] {
  return forms(value)
    .filter((f) => text.includes(f.text))
    .map((f) => f.form);
}

// ---- items that pass through -----------------------------------------------------------

type Doc = Record<string, unknown>;

function identity(d: Doc): string {
  const md = (d.metadata ?? {}) as Doc;
  return `${String(d.apiVersion)}|${String(d.kind)}|${String(md.namespace ?? '')}|${String(md.name ?? '')}`;
}

function leaves(v: unknown, path: string, out: Map<string, string>): void {
  if (Array.isArray(v)) v.forEach((x, i) => leaves(x, `${path}[${i}]`, out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) leaves(x, `${path}.${k}`, out);
  else out.set(path, String(v));
}

/** The leaves of `out` that are new or differ from every same-identity input item (site A and B hold one each), as text. */
function changedLeaves(out: Doc, inputs: Map<string, Map<string, string>[]>): string {
  const before = inputs.get(identity(out)) ?? [];
  const now = new Map<string, string>();
  leaves(out, '', now);
  const changed: string[] = [];
  for (const [p, v] of now) if (!before.some((b) => b.get(p) === v)) changed.push(`${p}=${v}`);
  return changed.join('\n');
}

/** What the input held: items by identity (as their leaves) and every line of its text. */
export interface Inputs {
  items: Map<string, Map<string, string>[]>;
  lines: Set<string>;
}

export function inputsOf(texts: readonly string[]): Inputs {
  const items = new Map<string, Map<string, string>[]>();
  const lines = new Set<string>();
  for (const t of texts) {
    for (const l of t.split('\n')) lines.add(l.trim());
    for (const d of parseAllDocuments(t)) {
      const v = d.toJS({ maxAliasCount: -1 }) as Doc | null;
      if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
      const l = new Map<string, string>();
      leaves(v, '', l);
      items.set(identity(v), [...(items.get(identity(v)) ?? []), l]);
    }
  }
  return { items, lines };
}

/**
 * What of a YAML output a reader sees that was not already in the input: items are the user's
 * own files (a Secret passes through a function unchanged: lossless), so of an item only what
 * is new or changed against the same-identity input item counts, and comment lines the input
 * did not hold; everything else of a ResourceList (results, a functionConfig) counts whole.
 * Text that is not YAML counts whole.
 */
export function newText(output: string, inputs: Inputs): string {
  let docs: Doc[];
  try {
    docs = parseAllDocuments(output).map((d) => {
      if (d.errors.length) throw new Error('not YAML');
      return d.toJS({ maxAliasCount: -1 }) as Doc;
    });
  } catch {
    return output;
  }
  const parts: string[] = [];
  for (const d of docs) {
    if (d === null || typeof d !== 'object' || Array.isArray(d)) {
      parts.push(String(d));
      continue;
    }
    if (d.kind === 'ResourceList') {
      const { items, ...rest } = d;
      parts.push(JSON.stringify(rest));
      for (const it of Array.isArray(items) ? items : []) parts.push(changedLeaves(it as Doc, inputs.items));
    } else parts.push(changedLeaves(d, inputs.items));
  }
  for (const l of output.split('\n')) if (l.includes('#') && !inputs.lines.has(l.trim())) parts.push(l);
  return parts.join('\n');
}
