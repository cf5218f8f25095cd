/**
 * Which values of a Secret or a catalogue are secrets in plain text, which are sops ciphertext
 * and which are placeholders that a replacement transformer fills in at render time
 * (airshipctl's `REPLACEMENT_ISO_PASSWORD_ROOT`, Flux's `${BMC_PASSWORD}`). Values are looked at,
 * never returned: callers get field paths and placeholder names.
 */
import { isRecord } from '../../krm/index.js';
import type { Tree } from '../context.js';
// which keys and values are credentials: one source of truth, shared with every output's redaction
import { isCredentialKey, isNonCredentialSecretKey, isSopsEncrypted as isEncrypted } from '../../secrets/redact.js';

/**
 * Placeholders replaced at render time: airshipctl's REPLACEMENT_* words anywhere in a value, and a
 * value that is only a Flux post-build variable (`${BMC_PASSWORD}`; inside a script `${x}` is shell).
 */
const PLACEHOLDER = /\bREPLACEMENT_[A-Z0-9_]+\b|^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/g;
const LIMIT = 1000;

function hasPlaceholder(text: string): boolean {
  PLACEHOLDER.lastIndex = 0;
  return PLACEHOLDER.test(text);
}

/** Sensitive-looking keys with plaintext values (strings or numbers), as dotted paths. */
function collectSensitive(v: unknown, path: string[], out: { path: string; value: string }[]): void {
  if (out.length > LIMIT) return;
  if (Array.isArray(v)) v.forEach((x, i) => collectSensitive(x, [...path, String(i)], out));
  else if (isRecord(v)) {
    for (const [k, x] of Object.entries(v)) {
      if ((k === 'sops' || k === 'metadata') && path.length === 0) continue;
      // a number is a plaintext secret too (`password: 12345`)
      const plain = (typeof x === 'string' || typeof x === 'number') && x !== '' && !isEncrypted(x);
      if (plain && isCredentialKey(k)) out.push({ path: [...path, k].join('.'), value: String(x) });
      else collectSensitive(x, [...path, k], out);
    }
  }
}

/** A Secret's data and stringData values, decoded, with their paths (network data and the like left out). */
function secretEntries(tree: Tree): { path: string; value: string }[] {
  const out: { path: string; value: string }[] = [];
  for (const section of ['data', 'stringData']) {
    const m = tree[section];
    if (!isRecord(m)) continue;
    for (const [name, v] of Object.entries(m)) {
      if (v === null || v === '' || isEncrypted(v) || isNonCredentialSecretKey(name)) continue;
      const text = typeof v === 'string' ? v : String(v);
      out.push({ path: `${section}.${name}`, value: section === 'data' ? Buffer.from(text, 'base64').toString('utf8') : text });
    }
  }
  return out;
}

/** Plaintext secret fields and placeholder fields of a Secret (`isSecret`) or a catalogue. */
export function sensitiveValues(tree: Tree, isSecret: boolean): { plain: string[]; placeholders: string[] } {
  let entries: { path: string; value: string }[];
  if (isSecret) entries = secretEntries(tree);
  else {
    entries = [];
    collectSensitive(tree, [], entries);
  }
  const plain: string[] = [];
  const placeholders: string[] = [];
  for (const e of entries) (hasPlaceholder(e.value) ? placeholders : plain).push(e.path);
  return { plain, placeholders };
}

/** The placeholder words in the value at a dotted field of a Secret or catalogue (decoded for Secret data). */
export function placeholderTokens(tree: Tree, field: string): string[] {
  const section = /^(data|stringData)\./.exec(field)?.[1];
  let v: unknown = tree;
  if (tree.kind === 'Secret' && section) v = isRecord(tree[section]) ? tree[section][field.slice(section.length + 1)] : undefined;
  else for (const p of field.split('.')) v = isRecord(v) || Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined;
  if (typeof v !== 'string') return [];
  const text = section === 'data' && tree.kind === 'Secret' ? Buffer.from(v, 'base64').toString('utf8') : v;
  return [...new Set(text.match(PLACEHOLDER) ?? [])];
}

/** Dotted paths of `ENC[...]` values (sops ciphertext), outside metadata and sops. */
export function collectEncrypted(v: unknown, path: string[], out: string[]): void {
  if (out.length > LIMIT) return;
  if (Array.isArray(v)) v.forEach((x, i) => collectEncrypted(x, [...path, String(i)], out));
  else if (isRecord(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (path.length === 0 && (k === 'sops' || k === 'metadata')) continue;
      if (isEncrypted(x)) out.push([...path, k].join('.'));
      else collectEncrypted(x, [...path, k], out);
    }
  }
}
