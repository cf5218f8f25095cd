/**
 * A whole SOPS document: the tree (tree.ts), the data key wrapped for age recipients (age.ts)
 * and the `sops:` metadata block, with the fields and field order of getsops/sops
 * stores.Metadata as SOPS >= 3.10 writes it (empty key lists omitted): `age`, `lastmodified`,
 * `mac`, the crypt rule (`unencrypted_suffix` / `encrypted_suffix` / `unencrypted_regex` /
 * `encrypted_regex`), `mac_only_encrypted` when set, `version`. This is what Flux's
 * kustomize-controller reads (`spec.decryption.provider: sops`, age keys from a Secret) and what
 * `sops --decrypt` opens.
 */
import { isRecord, lazy } from '../krm/index.js';
import { type AgeKey, unwrapDataKey, wrapDataKey } from './age.js';
import { type CryptRules, SopsError, decryptTree, decryptValue, effectiveRules, encryptTree, encryptValue } from './tree.js';

const nodeCrypto = lazy(() => require('node:crypto') as typeof import('node:crypto'), 'node:crypto', import.meta.url);

/** The SOPS release whose file layout (metadata fields, order, omitted empty key lists) this writes. */
export const SOPS_VERSION = '3.10.2';

export interface SopsMetadata {
  age: AgeKey[];
  lastmodified: string;
  mac: string;
  unencrypted_suffix?: string;
  encrypted_suffix?: string;
  unencrypted_regex?: string;
  encrypted_regex?: string;
  mac_only_encrypted?: boolean;
  version: string;
}

/** Go's time.Format(time.RFC3339) of a UTC time: seconds, `Z`. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** What SOPS uses as the MAC's additional data: lastmodified parsed and formatted again (fractions dropped). */
function macAdditionalData(lastmodified: string): string {
  return lastmodified.replace(/\.\d+(?=Z|[+-]\d\d:\d\d$)/, '');
}

function rulesFields(rules: CryptRules): Partial<SopsMetadata> {
  const r = effectiveRules(rules);
  const out: Partial<SopsMetadata> = {};
  if (r.unencryptedSuffix) out.unencrypted_suffix = r.unencryptedSuffix;
  if (r.encryptedSuffix) out.encrypted_suffix = r.encryptedSuffix;
  if (r.unencryptedRegex) out.unencrypted_regex = r.unencryptedRegex;
  if (r.encryptedRegex) out.encrypted_regex = r.encryptedRegex;
  if (r.macOnlyEncrypted) out.mac_only_encrypted = true;
  return out;
}

function rulesOf(m: SopsMetadata): CryptRules {
  const r: CryptRules = {};
  if (m.unencrypted_suffix) r.unencryptedSuffix = m.unencrypted_suffix;
  if (m.encrypted_suffix) r.encryptedSuffix = m.encrypted_suffix;
  if (m.unencrypted_regex) r.unencryptedRegex = m.unencrypted_regex;
  if (m.encrypted_regex) r.encryptedRegex = m.encrypted_regex;
  if (m.mac_only_encrypted) r.macOnlyEncrypted = true;
  return r;
}

export interface EncryptOptions {
  recipients: readonly string[];
  rules: CryptRules;
  /** lastmodified */
  now: Date;
}

/** `sops --encrypt` of one document: its leaves encrypted, `sops:` appended last (as SOPS writes it). */
export async function encryptDocument(doc: Record<string, unknown>, opts: EncryptOptions): Promise<Record<string, unknown>> {
  if (opts.recipients.length === 0) throw new SopsError('no age recipient to encrypt for');
  const dataKey = nodeCrypto().randomBytes(32);
  const { doc: encrypted, mac } = encryptTree(doc, dataKey, opts.rules);
  const lastmodified = rfc3339(opts.now);
  const metadata: SopsMetadata = {
    age: await wrapDataKey(dataKey, opts.recipients),
    lastmodified,
    mac: encryptValue(mac, dataKey, lastmodified),
    ...rulesFields(opts.rules),
    version: SOPS_VERSION,
  };
  return { ...encrypted, sops: metadata as unknown as Record<string, unknown> };
}

/** The `sops:` block of a document, checked; undefined when the document is not SOPS-encrypted. */
export function metadataOf(doc: Record<string, unknown>): SopsMetadata | undefined {
  const m = doc.sops;
  if (!isRecord(m)) return undefined;
  const age = Array.isArray(m.age) ? m.age.filter(isRecord) : [];
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const out: SopsMetadata = {
    age: age.map((a) => ({ recipient: str(a.recipient) ?? '', enc: str(a.enc) ?? '' })),
    lastmodified: str(m.lastmodified) ?? '',
    mac: str(m.mac) ?? '',
    version: str(m.version) ?? '',
  };
  for (const k of ['unencrypted_suffix', 'encrypted_suffix', 'unencrypted_regex', 'encrypted_regex'] as const) {
    const v = str(m[k]);
    if (v) out[k] = v;
  }
  if (m.mac_only_encrypted === true) out.mac_only_encrypted = true;
  return out;
}

export interface Decrypted {
  /** the plaintext document, without `sops` */
  doc: Record<string, unknown>;
  /** the stored MAC matches the plaintext (nothing was altered, reordered or added) */
  macOk: boolean;
  dataKey: Uint8Array;
}

/**
 * `sops --decrypt` of one document with age identities: undefined when none of them opens the
 * data key; throws SopsError on a damaged file (a value that the data key does not open).
 */
export async function decryptDocument(doc: Record<string, unknown>, identities: readonly string[]): Promise<Decrypted | undefined> {
  const m = metadataOf(doc);
  if (!m) throw new SopsError('the document has no sops metadata');
  const dataKey = await unwrapDataKey(m.age, identities);
  if (!dataKey) return undefined;
  const { doc: plain, mac } = decryptTree(doc, dataKey, rulesOf(m));
  let stored: unknown;
  try {
    stored = decryptValue(m.mac, dataKey, macAdditionalData(m.lastmodified));
  } catch {
    stored = undefined;
  }
  return { doc: plain, macOk: stored === mac, dataKey };
}

/** `sops updatekeys`: the same values, MAC and lastmodified, the data key wrapped for new recipients. */
export async function rewrapDocument(
  doc: Record<string, unknown>,
  dataKey: Uint8Array,
  recipients: readonly string[],
): Promise<Record<string, unknown>> {
  const sops = isRecord(doc.sops) ? doc.sops : {};
  const age = await wrapDataKey(dataKey, recipients);
  // age keeps its place among the metadata fields
  const next: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sops)) next[k] = k === 'age' ? age : v;
  if (!('age' in next)) return { ...doc, sops: { age, ...next } };
  return { ...doc, sops: next };
}

/** The age recipients a document is encrypted for. */
export function recipientsOf(doc: Record<string, unknown>): string[] {
  return (metadataOf(doc)?.age ?? []).map((a) => a.recipient);
}
